#include "table.h"

#include <algorithm>

namespace opscope::cli {

void Table::addColumn(std::string header, Align align) {
    headers_.push_back(std::move(header));
    aligns_.push_back(align);
}

void Table::addRow(std::vector<std::string> cells) {
    cells.resize(headers_.size());
    rows_.push_back({std::move(cells), false});
}

void Table::addNote(std::string text) { rows_.push_back({{std::move(text)}, true}); }

void Table::print(std::ostream& os) const {
    std::vector<std::size_t> width(headers_.size());
    for (std::size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
    for (const Row& r : rows_)
        if (!r.note)
            for (std::size_t c = 0; c < r.cells.size(); ++c) width[c] = std::max(width[c], r.cells[c].size());
    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            out += aligns_[c] == Align::Right ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : "");
            if (c + 1 < cells.size()) out += "  ";
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        os << out << '\n';
    };
    line(headers_);
    for (const Row& r : rows_) {
        if (r.note)
            os << "    " << r.cells[0] << '\n';
        else
            line(r.cells);
    }
}

}  // namespace opscope::cli
