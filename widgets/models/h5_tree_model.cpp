#include "models/h5_tree_model.h"

#include <QFont>
#include <QMimeData>
#include <algorithm>

#include "palette.h"

namespace opscope::gui {

struct H5TreeModel::Node {
    h5::NodeInfo info;
    Node* parent = nullptr;
    int row = 0;
    bool fetched = false;
    std::vector<std::unique_ptr<Node>> children;
};

H5TreeModel::H5TreeModel(QObject* parent) : QAbstractItemModel(parent) {}
H5TreeModel::~H5TreeModel() = default;

void H5TreeModel::setFile(const h5::File* file, std::set<std::string> casePaths) {
    beginResetModel();
    file_ = file;
    casePaths_ = std::move(casePaths);
    root_.reset();
    nodeCount_ = 0;
    if (file_) {
        root_ = std::make_unique<Node>();
        root_->info.path = "/";
        root_->info.kind = h5::ObjectKind::Group;
    }
    endResetModel();
}

void H5TreeModel::setListing(const std::vector<h5::NodeInfo>& datasets) {
    beginResetModel();
    file_ = nullptr;
    casePaths_.clear();
    nodeCount_ = 0;
    root_ = std::make_unique<Node>();
    root_->info.path = "/";
    root_->info.kind = h5::ObjectKind::Group;
    for (const h5::NodeInfo& d : datasets) {
        Node* parent = root_.get();
        for (std::size_t end = d.path.find('/'); end != std::string::npos; end = d.path.find('/', end + 1)) {
            const std::string group = d.path.substr(0, end);
            const auto found = std::find_if(parent->children.begin(), parent->children.end(),
                                            [&](const auto& c) { return c->info.path == group; });
            if (found != parent->children.end()) {
                parent = found->get();
                continue;
            }
            h5::NodeInfo g;
            g.path = group;
            g.name = group.substr(group.rfind('/') == std::string::npos ? 0 : group.rfind('/') + 1);
            g.kind = h5::ObjectKind::Group;
            adoptChildren(parent, {std::move(g)});
            parent = parent->children.back().get();
        }
        adoptChildren(parent, {d});
    }
    endResetModel();
}

H5TreeModel::Node* H5TreeModel::node(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

QModelIndex H5TreeModel::index(int row, int column, const QModelIndex& parent) const {
    Node* p = node(parent);
    if (!p || row < 0 || row >= static_cast<int>(p->children.size()) || column < 0 || column >= ColumnCount) return {};
    return createIndex(row, column, p->children[static_cast<std::size_t>(row)].get());
}

QModelIndex H5TreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    Node* n = node(child);
    if (!n->parent || n->parent == root_.get()) return {};
    return createIndex(n->parent->row, 0, n->parent);
}

int H5TreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.column() > 0) return 0;
    Node* n = node(parent);
    return n ? static_cast<int>(n->children.size()) : 0;
}

int H5TreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

bool H5TreeModel::hasChildren(const QModelIndex& parent) const {
    Node* n = node(parent);
    if (!n || n->info.kind != h5::ObjectKind::Group) return false;
    return !n->fetched || !n->children.empty();
}

bool H5TreeModel::canFetchMore(const QModelIndex& parent) const {
    Node* n = node(parent);
    return n && file_ && n->info.kind == h5::ObjectKind::Group && !n->fetched;
}

void H5TreeModel::fetchMore(const QModelIndex& parent) {
    Node* n = node(parent);
    if (!canFetchMore(parent)) return;
    n->fetched = true;
    std::vector<h5::NodeInfo> list = listChildren(*n);
    if (list.empty()) return;
    beginInsertRows(parent, 0, static_cast<int>(list.size()) - 1);
    adoptChildren(n, std::move(list));
    endInsertRows();
}

std::vector<h5::NodeInfo> H5TreeModel::listChildren(const Node& n) const {
    try {
        return h5::listTree(*file_, n.info.path, 1);
    } catch (const std::exception&) {
        return {};  // an unreadable group shows as empty
    }
}

void H5TreeModel::adoptChildren(Node* n, std::vector<h5::NodeInfo> list) {
    for (h5::NodeInfo& info : list) {
        auto child = std::make_unique<Node>();
        child->info = std::move(info);
        child->parent = n;
        child->row = static_cast<int>(n->children.size());
        n->children.push_back(std::move(child));
    }
    nodeCount_ += static_cast<int>(list.size());
}

void H5TreeModel::fetchAll(int maxNodes) {
    std::vector<QModelIndex> pending{QModelIndex()};
    while (!pending.empty() && nodeCount_ < maxNodes) {
        const QModelIndex parent = pending.back();
        pending.pop_back();
        if (canFetchMore(parent)) fetchMore(parent);
        for (int r = 0; r < rowCount(parent); ++r)
            if (hasChildren(index(r, 0, parent))) pending.push_back(index(r, 0, parent));
    }
}

const h5::NodeInfo* H5TreeModel::nodeInfo(const QModelIndex& index) const {
    return index.isValid() ? &node(index)->info : nullptr;
}

QVariant H5TreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Node* n = node(index);
    const h5::NodeInfo& i = n->info;
    const bool isDataset = i.kind == h5::ObjectKind::Dataset;
    const bool isCase = casePaths_.count(i.path) > 0;
    switch (role) {
        case PathRole: return QString::fromStdString(i.path);
        case IsDatasetRole: return isDataset;
        case IsCaseRole: return isCase;
        case Qt::FontRole:
            if (isCase) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        case Qt::ToolTipRole:
            return QString::fromStdString(i.path) + (isCase      ? tr("\nA case: double-click to load it")
                                                     : isDataset ? tr("\nDrag onto a tensor argument")
                                                                 : QString());
        case Qt::DisplayRole:
            switch (index.column()) {
                case Name: return QString::fromStdString(i.name);
                case Type:
                    if (isDataset) return QString::fromStdString(i.dataset.typeName);
                    if (isCase) return tr("case");
                    return QString::fromUtf8(h5::kindName(i.kind));
                case Shape:
                    return isDataset ? (i.dataset.nullSpace ? tr("null") : formatShape(i.dataset.shape)) : QVariant();
                case Storage:
                    if (!isDataset) return i.attributeCount ? tr("%n attr(s)", "", int(i.attributeCount)) : QVariant();
                    return formatBytes(double(i.dataset.storageBytes)) +
                           (i.dataset.compressed ? tr(" (compressed)") : QString());
            }
            return {};
    }
    return {};
}

QVariant H5TreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Name", "Type", "Shape", "Storage"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

Qt::ItemFlags H5TreeModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractItemModel::flags(index);
    if (index.isValid() && node(index)->info.kind == h5::ObjectKind::Dataset) f |= Qt::ItemIsDragEnabled;
    return f;
}

QStringList H5TreeModel::mimeTypes() const { return {QString::fromLatin1(kDatasetMime)}; }

QMimeData* H5TreeModel::mimeData(const QModelIndexList& indexes) const {
    for (const QModelIndex& i : indexes) {
        if (!i.isValid() || node(i)->info.kind != h5::ObjectKind::Dataset) continue;
        auto* mime = new QMimeData();
        const QString path = QString::fromStdString(node(i)->info.path);
        mime->setData(kDatasetMime, path.toUtf8());
        mime->setText(path);
        return mime;
    }
    return nullptr;
}

QModelIndex H5TreeModel::indexForPath(const std::string& path) {
    if (!root_) return {};
    QModelIndex current;
    Node* n = root_.get();
    std::size_t start = 0;  // an HDF5 path's leading '/' makes an empty part; a listing's keys have none
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string::npos) end = path.size();
        const std::string part = path.substr(start, end - start);
        start = end + 1;
        if (part.empty()) continue;
        if (canFetchMore(current)) fetchMore(current);
        Node* next = nullptr;
        for (const auto& c : n->children)
            if (c->info.name == part) next = c.get();
        if (!next) return {};
        n = next;
        current = createIndex(n->row, 0, n);
    }
    return current;
}

}  // namespace opscope::gui
