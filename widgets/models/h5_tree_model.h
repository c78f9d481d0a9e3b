// The open HDF5 file as a lazily filled tree: a group's children are listed (metadata only)
// the first time it is expanded, so a multi-GB checkpoint opens instantly. Datasets can be
// dragged onto tensor arguments (mime type kDatasetMime holds the dataset path).
#pragma once

#include <QAbstractItemModel>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "opscope/h5/tensor_io.h"

namespace opscope::gui {

class H5TreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    static constexpr const char* kDatasetMime = "application/x-opscope-dataset";
    enum Column { Name, Type, Shape, Storage, ColumnCount };
    enum Role { PathRole = Qt::UserRole + 1, IsDatasetRole, IsCaseRole };

    explicit H5TreeModel(QObject* parent = nullptr);
    ~H5TreeModel() override;

    // The model reads metadata through `file` (owned by the context) until the next reset.
    void setFile(const h5::File* file, std::set<std::string> casePaths = {});
    // A listing known whole (a tensor file's tensors): `datasets` as the tree's leaves, each
    // path's parts before a '/' its groups ("model/conv.weight" under "model"); nothing is
    // fetched later.
    void setListing(const std::vector<h5::NodeInfo>& datasets);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;

    // The index of an object path, fetching the groups on the way (invalid if missing).
    QModelIndex indexForPath(const std::string& path);
    // Lists every group not listed yet, until `maxNodes` nodes are in the tree (a filter
    // over the whole file needs them all).
    void fetchAll(int maxNodes);
    // The object behind an index (null for the invalid index).
    const h5::NodeInfo* nodeInfo(const QModelIndex& index) const;

private:
    struct Node;
    Node* node(const QModelIndex& index) const;
    std::vector<h5::NodeInfo> listChildren(const Node& n) const;
    void adoptChildren(Node* n, std::vector<h5::NodeInfo> list);
    const h5::File* file_ = nullptr;
    std::unique_ptr<Node> root_;
    std::set<std::string> casePaths_;
    int nodeCount_ = 0;
};

}  // namespace opscope::gui
