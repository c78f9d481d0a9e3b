// Aligned text tables for the terminal: columns sized to their widest cell.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace opscope::cli {

class Table {
public:
    enum class Align { Left, Right };
    void addColumn(std::string header, Align align = Align::Left);
    void addRow(std::vector<std::string> cells);
    // A line printed under the previous row, indented, not aligned into columns.
    void addNote(std::string text);
    void print(std::ostream& os) const;
    bool empty() const { return rows_.empty(); }

private:
    struct Row {
        std::vector<std::string> cells;
        bool note = false;
    };
    std::vector<std::string> headers_;
    std::vector<Align> aligns_;
    std::vector<Row> rows_;
};

}  // namespace opscope::cli
