// The file tree filtered by a query over name, path, dtype and shape, keeping the groups on
// the way to each match (recursive filtering). The whole tree is listed (metadata only) when
// a query is set, since the lazily filled tree would otherwise hide unopened groups' matches.
#pragma once

#include <QSortFilterProxyModel>
#include <QStringList>
#include <vector>

#include "opscope/h5/tensor_io.h"

namespace opscope::gui {

class H5TreeModel;

// A parsed query: every term must match. See H5TreeFilterModel::kSyntax.
struct TreeQuery {
    QStringList words;                         // substrings of the path, dtype names or aliases, dimensions
    std::vector<std::vector<int64_t>> shapes;  // "[32768, 4096]": exactly this shape

    static TreeQuery parse(const QString& text);
    bool empty() const { return words.isEmpty() && shapes.empty(); }
    bool matches(const h5::NodeInfo& node) const;
};

class H5TreeFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    static const char* const kSyntax;  // the filter box's tooltip
    // Groups listed at most when a query asks for the whole tree (a runaway file stays usable).
    static constexpr int kMaxListedNodes = 200000;

    explicit H5TreeFilterModel(H5TreeModel* source, QObject* parent = nullptr);
    void setQuery(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    H5TreeModel* source_;
    TreeQuery query_;
};

}  // namespace opscope::gui
