// File, groups and attributes. Only metadata is touched here; tensor data is tensor_io's.
#include "opscope/h5/h5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "opscope/h5/file_safety.h"
#include "opscope/names.h"
#include "attribute_reader.h"
#include "strings_internal.h"

namespace opscope::h5 {
namespace {

using detail::variableStringType;

ObjectInfo objectInfo(hid_t loc, const std::string& path, const std::string& what) {
    ObjectInfo result;
    // Only the cheap fields: the header details HDF5 could also gather are not needed.
    const unsigned fields = H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS;
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t oi;
    call(what, [&] { return H5Oget_info_by_name3(loc, path.c_str(), &oi, fields, H5P_DEFAULT); });
    result.identity.assign(reinterpret_cast<const char*>(&oi.token), sizeof oi.token);
#else
    H5O_info_t oi;
    call(what, [&] { return H5Oget_info_by_name2(loc, path.c_str(), &oi, fields, H5P_DEFAULT); });
    result.identity.assign(reinterpret_cast<const char*>(&oi.addr), sizeof oi.addr);
#endif
    result.identity.append(reinterpret_cast<const char*>(&oi.fileno), sizeof oi.fileno);
    result.attributeCount = static_cast<int64_t>(oi.num_attrs);
    switch (oi.type) {
        case H5O_TYPE_GROUP: result.kind = ObjectKind::Group; break;
        case H5O_TYPE_DATASET: result.kind = ObjectKind::Dataset; break;
        case H5O_TYPE_NAMED_DATATYPE: result.kind = ObjectKind::Datatype; break;
        default: result.kind = ObjectKind::Missing; break;
    }
    return result;
}

// What the link `name` in `location` leads to: soft links are followed, external ones are not.
ObjectInfo resolveLink(hid_t location, const std::string& name, H5L_type_t type, const std::string& what) {
    const bool soft = type == H5L_TYPE_SOFT;
    if (soft && probe([&] { return H5Oexists_by_name(location, name.c_str(), H5P_DEFAULT); }) <= 0)
        return ObjectInfo{ObjectKind::Link, true, 0, {}, {}};  // dangling
    if (type == H5L_TYPE_EXTERNAL)
        return ObjectInfo{ObjectKind::Link, false, 0, {}, externalLinkTarget(location, name, what)};
    if (type != H5L_TYPE_HARD && !soft) return ObjectInfo{ObjectKind::Link, false, 0, {}, {}};
    ObjectInfo result = objectInfo(location, name, what);
    result.viaSoftLink = soft;
    return result;
}

struct Link {
    std::string name;
    H5L_type_t type;
};

herr_t collectLink(hid_t, const char* name, const H5L_info_t* info, void* out) {
    try {
        static_cast<std::vector<Link>*>(out)->push_back({name, info->type});
        return 0;
    } catch (...) {
        return -1;  // no exception may cross HDF5's C frames
    }
}

herr_t collectAttributeName(hid_t, const char* name, const H5A_info_t*, void* out) {
    try {
        static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        return 0;
    } catch (...) {
        return -1;
    }
}

// An open group and its links, sorted by name.
struct GroupLinks {
    Handle handle;
    std::vector<Link> links;
    std::string what;

    GroupLinks(const File& file, const std::string& groupPath) {
        const std::string path = file.requireKind(groupPath, ObjectKind::Group);
        what = "cannot list group '" + path + "' in '" + file.path() + "'";
        handle = open(Handle::Kind::Group, what, [&] { return H5Gopen2(file.id(), path.c_str(), H5P_DEFAULT); });
        call(what, [&] { return H5Literate(handle.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collectLink, &links); });
        std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) { return a.name < b.name; });
    }
};

Handle scalarSpace(const std::string& what) {
    return open(Handle::Kind::Dataspace, what, [] { return H5Screate(H5S_SCALAR); });
}

Handle vectorSpace(size_t n, const std::string& what) {
    const hsize_t dims[1] = {n};
    return open(Handle::Kind::Dataspace, what, [&] { return H5Screate_simple(1, dims, nullptr); });
}

Handle fileAccessList(const std::string& what, bool writable) {
    Handle access = open(Handle::Kind::PropertyList, what, [] { return H5Pcreate(H5P_FILE_ACCESS); });
#if H5_VERSION_GE(1, 10, 7)
    // Readers take no lock: a viewer must never stop a program from writing its file (a live
    // trace), and a file changed underneath a reader is reported, never trusted. Writers lock;
    // filesystems without flock() (some NFS mounts) would otherwise refuse every open.
    call(what, [&] { return H5Pset_file_locking(access.id(), writable, true); });
#endif
    // New objects in the 1.8 format: every h5py reads it, and it allows attributes over 64 KiB.
    // The high bound stays open so that files written by newer libraries still open for writing.
    call(what, [&] { return H5Pset_libver_bounds(access.id(), H5F_LIBVER_V18, H5F_LIBVER_LATEST); });
    return access;
}

std::vector<std::string> readStrings(const AttributeReader& r) {
    if (r.typeClass != H5T_STRING) r.mismatch("string");
    const hid_t fileType = r.type.id();
    std::vector<std::string> out;
    out.reserve(r.count);
    if (call(r.what, [&] { return H5Tis_variable_str(fileType); }) > 0) {
        const H5T_cset_t cset = call(r.what, [&] { return H5Tget_cset(fileType); });
        Handle memory = variableStringType(cset, r.what);
        if (r.count == 0) return out;
        std::vector<char*> pointers(r.count, nullptr);
        call(r.what, [&] { return H5Aread(r.attribute.id(), memory.id(), pointers.data()); });
        const detail::ReclaimOnExit reclaim{memory.id(), r.space.id(), pointers.data()};
        for (char* p : pointers) out.emplace_back(p ? p : "");
        return out;
    }
    const size_t size = call(r.what, [&] { return H5Tget_size(fileType); });
    const H5T_str_t pad = call(r.what, [&] { return H5Tget_strpad(fileType); });
    Handle memory = open(Handle::Kind::Datatype, r.what, [&] { return H5Tcopy(fileType); });
    std::vector<char> bytes(r.count * size);
    if (r.count > 0) call(r.what, [&] { return H5Aread(r.attribute.id(), memory.id(), bytes.data()); });
    for (size_t i = 0; i < r.count; ++i) {
        const char* s = bytes.data() + i * size;
        std::string value(s, strnlen(s, size));
        if (pad == H5T_STR_SPACEPAD) value.erase(value.find_last_not_of(' ') + 1);
        out.push_back(std::move(value));
    }
    return out;
}

// The attribute `name` of the object `objectName` in `location` when it holds one string (what
// marks a case group: its 'op'); nullopt when it is absent or anything else.
std::optional<std::string> stringMarker(Id location, const std::string& objectName, const std::string& name,
                                        const std::string& object) {
    const std::optional<AttributeReader> r = openAttributeAt(location, objectName, name, object);
    if (!r || r->typeClass != H5T_STRING || r->count != 1) return std::nullopt;
    return readStrings(*r).front();
}

std::vector<int64_t> readIntegers(const AttributeReader& r) {
    if (r.typeClass != H5T_INTEGER) r.mismatch("an integer");
    return r.readAs<int64_t>(H5T_NATIVE_INT64);
}

std::vector<double> readReals(const AttributeReader& r) {
    if (r.typeClass != H5T_INTEGER && r.typeClass != H5T_FLOAT) r.mismatch("a number");
    return r.readAs<double>(H5T_NATIVE_DOUBLE);
}

}  // namespace

AttributeReader openAttribute(const File& file, const std::string& objectPath, const std::string& name) {
    const std::string path = normalizePath(objectPath);
    const ObjectInfo found = file.info(path);
    file.refuseIfExternal(path, found);
    const ObjectKind kind = found.kind;
    if (kind == ObjectKind::Missing || kind == ObjectKind::Link)
        throw ContentError("no object '" + path + "' in file '" + file.path() + "'");
    std::optional<AttributeReader> r =
        openAttributeAt(file.id(), path, name, "'" + path + "' in '" + file.path() + "'");
    if (!r) throw ContentError("no attribute '" + name + "' of '" + path + "' in '" + file.path() + "'");
    return std::move(*r);
}

std::optional<AttributeReader> openAttributeAt(Id location, const std::string& objectName, const std::string& name,
                                               const std::string& object) {
    AttributeReader r;
    r.where = "attribute '" + name + "' of " + object;
    r.what = "cannot read " + r.where;
    if (call(r.what, [&] { return H5Aexists_by_name(location, objectName.c_str(), name.c_str(), H5P_DEFAULT); }) == 0)
        return std::nullopt;
    r.attribute = open(Handle::Kind::Attribute, r.what, [&] {
        return H5Aopen_by_name(location, objectName.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    });
    r.type = open(Handle::Kind::Datatype, r.what, [&] { return H5Aget_type(r.attribute.id()); });
    r.space = open(Handle::Kind::Dataspace, r.what, [&] { return H5Aget_space(r.attribute.id()); });
    r.typeClass = call(r.what, [&] { return H5Tget_class(r.type.id()); });
    // A null dataspace holds no value; a scalar one has rank 0 and one value.
    if (call(r.what, [&] { return H5Sget_simple_extent_type(r.space.id()); }) != H5S_NULL) {
        r.rank = call(r.what, [&] { return H5Sget_simple_extent_ndims(r.space.id()); });
        r.count = static_cast<size_t>(call(r.what, [&] { return H5Sget_simple_extent_npoints(r.space.id()); }));
    }
    return r;
}

const char* kindName(ObjectKind kind) {
    static constexpr Named<ObjectKind> kKinds[] = {{ObjectKind::Group, "group"},
                                                   {ObjectKind::Dataset, "dataset"},
                                                   {ObjectKind::Datatype, "named datatype"},
                                                   {ObjectKind::Link, "link"}};
    return nameOf(kKinds, kind, "missing object");
}

std::string parentPath(const std::string& normalized) {
    const size_t slash = normalized.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : normalized.substr(0, slash);
}

std::string normalizePath(const std::string& path) {
    std::string out = "/";
    for (size_t begin = 0; begin < path.size();) {
        size_t end = path.find('/', begin);
        if (end == std::string::npos) end = path.size();
        if (end > begin) {
            if (out.size() > 1) out += '/';
            out.append(path, begin, end - begin);
        }
        begin = end + 1;
    }
    return out;
}

// ---- opening -------------------------------------------------------------------------------

File::File(Handle handle, std::string path, bool writable)
    : handle_(std::move(handle)),
      path_(std::move(path)),
      writable_(writable),
      externalAllowed_(externalDataAllowed(path_)) {}

File File::open(const std::string& path, bool writable) {
    const std::string what = "cannot open '" + path + "'";
    const unsigned flags = writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY;
    disablePluginLoading();
    auto openWith = [&](bool locking) {
        Handle access = fileAccessList(what, locking);
        return h5::open(Handle::Kind::File, what, [&] { return H5Fopen(path.c_str(), flags, access.id()); });
    };
    auto opened = [&]() -> File {
        try {
            return File(openWith(writable), path, writable);
        } catch (const FileError& e) {
            // This process already has the file open for writing (a trace it records): HDF5 then
            // shares that open file and insists on the same locking setting.
            if (writable || std::string(e.what()).find("file locking flag values don't match") == std::string::npos)
                throw;
            return File(openWith(true), path, writable);
        }
    }();
    // A read-only open of a file this process writes shares the writer's open file (and its
    // intent): what it finds can change under it, so only a file nobody here writes remembers.
    unsigned intent = 0;
    call(what, [&] { return H5Fget_intent(opened.id(), &intent); });
    if (!writable && (intent & H5F_ACC_RDWR) == 0) opened.memo_ = std::make_unique<LookupMemo>();
    return opened;
}

File File::openReadOnly(const std::string& path) { return open(path, false); }
File File::openReadWrite(const std::string& path) { return open(path, true); }

File File::create(const std::string& path) {
    const std::string what = "cannot create '" + path + "'";
    Handle access = fileAccessList(what, true);
    // A created file is written object after object (an import: thousands of small groups). HDF5's
    // 2 MiB starting metadata cache then spends its time evicting and rereading; start bigger.
    H5AC_cache_config_t cache;
    cache.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    call(what, [&] { return H5Pget_mdc_config(access.id(), &cache); });
    cache.set_initial_size = true;
    cache.initial_size = std::size_t(16) << 20;
    cache.max_size = std::max<std::size_t>(cache.max_size, cache.initial_size);
    call(what, [&] { return H5Pset_mdc_config(access.id(), &cache); });
    Handle file = h5::open(Handle::Kind::File, what,
                           [&] { return H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.id()); });
    File created(std::move(file), path, true);
    created.createdHere_ = true;
    return created;
}

void File::flush() {
    call("cannot flush '" + path_ + "'", [&] { return H5Fflush(id(), H5F_SCOPE_LOCAL); });
}

void File::close() {
    openGroups_.clear();
    handle_.close("cannot close '" + path_ + "'");
}

void File::requireWritable(const std::string& what) const {
    if (!writable_) throw IoError(what + ": the file is open read-only");
}

// ---- objects -------------------------------------------------------------------------------

ObjectInfo File::info(const std::string& path) const {
    const std::string normalized = normalizePath(path);
    if (normalized == "/") return objectInfo(id(), "/", "cannot look up '/' in '" + path_ + "'");
    if (createdHere_) return lookUpCreated(normalized);
    if (!memo_) return lookUp(normalized, 0);
    {
        std::lock_guard<std::mutex> lock(memo_->mutex);
        if (const auto known = memo_->found.find(normalized); known != memo_->found.end()) return known->second;
    }
    ObjectInfo found = lookUp(normalized, 0);  // a refused external link throws: never remembered
    if (found.kind == ObjectKind::Missing) return found;
    std::lock_guard<std::mutex> lock(memo_->mutex);
    if (memo_->found.size() >= LookupMemo::kMaxRemembered) memo_->found.clear();
    memo_->found.emplace(normalized, found);
    return found;
}

ObjectInfo File::lookUp(const std::string& normalized, int hops) const {
    const std::string what = "cannot look up '" + normalized + "' in '" + path_ + "'";
    // HDF5 follows at most 16 soft links in one path; a longer chain is treated as dangling.
    constexpr int kMaxSoftLinkHops = 16;
    std::vector<std::string> names;
    for (std::size_t begin = 1; begin <= normalized.size();) {
        const std::size_t end = std::min(normalized.find('/', begin), normalized.size());
        names.push_back(normalized.substr(begin, end - begin));
        begin = end + 1;
    }
    Handle group = h5::open(Handle::Kind::Group, what, [&] { return H5Gopen2(id(), "/", H5P_DEFAULT); });
    std::string at = "/";
    for (std::size_t i = 0; i < names.size(); ++i) {
        const char* name = names[i].c_str();
        const bool last = i + 1 == names.size();
        const std::string here = (at == "/" ? "" : at) + "/" + names[i];
        if (call(what, [&] { return H5Lexists(group.id(), name, H5P_DEFAULT); }) == 0) return {};
        H5L_info_t link;
        call(what, [&] { return H5Lget_info(group.id(), name, &link, H5P_DEFAULT); });
        std::string rest;
        for (std::size_t k = i + 1; k < names.size(); ++k) rest += "/" + names[k];
        if (link.type == H5L_TYPE_SOFT) {
            if (hops >= kMaxSoftLinkHops) return ObjectInfo{ObjectKind::Link, true, 0, {}, {}};
            std::vector<char> target(link.u.val_size + 1, '\0');
            call(what, [&] { return H5Lget_val(group.id(), name, target.data(), link.u.val_size, H5P_DEFAULT); });
            const std::string to(target.data());
            ObjectInfo found = lookUp(normalizePath((to.rfind('/', 0) == 0 ? to : at + "/" + to) + rest), hops + 1);
            if (!last) return found;
            if (found.kind == ObjectKind::Missing) return ObjectInfo{ObjectKind::Link, true, 0, {}, {}};  // dangling
            found.viaSoftLink = true;
            return found;
        }
        if (link.type == H5L_TYPE_EXTERNAL) {
            const std::string target = externalLinkTarget(group.id(), name, what);
            if (!externalAllowed_) {
                if (last) return ObjectInfo{ObjectKind::Link, false, 0, {}, target};
                refuseExternal("'" + here + "' in '" + path_ + "' (on the way to '" + normalized + "')",
                               "an external link", target);
            }
            // Allowed: HDF5 follows it and the rest of the path in the other file.
            const std::string inOther = names[i] + rest;
            if (probe([&] { return H5Oexists_by_name(group.id(), inOther.c_str(), H5P_DEFAULT); }) <= 0) return {};
            return objectInfo(group.id(), inOther, what);
        }
        if (link.type != H5L_TYPE_HARD) return last ? ObjectInfo{ObjectKind::Link, false, 0, {}, {}} : ObjectInfo{};
        const ObjectInfo found = objectInfo(group.id(), name, what);
        if (last) return found;
        if (found.kind != ObjectKind::Group) return {};  // a dataset is no parent
        group = h5::open(Handle::Kind::Group, what, [&] { return H5Gopen2(group.id(), name, H5P_DEFAULT); });
        at = here;
    }
    return {};
}

ObjectInfo File::lookUpCreated(const std::string& normalized) const {
    if (!created_.count(normalized)) return {};
    const auto [location, name] = placeOf(normalized);
    return objectInfo(location, name, "cannot look up '" + normalized + "' in '" + path_ + "'");
}

ObjectKind File::kindOf(const std::string& path) const {
    const std::string normalized = normalizePath(path);
    if (!createdHere_ || normalized == "/") return info(normalized).kind;
    const auto found = created_.find(normalized);
    return found == created_.end() ? ObjectKind::Missing : found->second;
}

void File::noteCreated(const std::string& normalized, ObjectKind kind) {
    if (createdHere_) created_[normalized] = kind;
}

void File::noteRemoved(const std::string& normalized) { created_.erase(normalized); }

Id File::plainDatasetCreateList(bool compact, const std::string& what) {
    Handle& list = datasetCreateLists_[compact ? 1 : 0];
    if (list.valid()) return list.id();
    list = h5::open(Handle::Kind::PropertyList, what, [] { return H5Pcreate(H5P_DATASET_CREATE); });
    // No timestamps: the same tensors make the same file.
    call(what, [&] { return H5Pset_obj_track_times(list.id(), false); });
    if (compact) call(what, [&] { return H5Pset_layout(list.id(), H5D_COMPACT); });
    return list.id();
}

std::pair<Id, std::string> File::placeOf(const std::string& normalized) const {
    const std::string parent = parentPath(normalized);
    if (!createdHere_ || normalized == "/") return {id(), normalized};
    const std::string name = normalized.substr(parent == "/" ? 1 : parent.size() + 1);
    if (parent == "/") return {id(), name};
    if (const Id open = openGroup(parent); open >= 0) return {open, name};
    const std::string what = "cannot open group '" + parent + "' in '" + path_ + "'";
    return {keepOpen(parent,
                     h5::open(Handle::Kind::Group, what, [&] { return H5Gopen2(id(), parent.c_str(), H5P_DEFAULT); })),
            name};
}

Id File::openGroup(const std::string& normalized) const {
    for (std::size_t i = openGroups_.size(); i-- > 0;) {
        if (openGroups_[i].first != normalized) continue;
        // Most recently used last: the group holding the cases stays open across cases.
        std::rotate(openGroups_.begin() + static_cast<std::ptrdiff_t>(i),
                    openGroups_.begin() + static_cast<std::ptrdiff_t>(i) + 1, openGroups_.end());
        return openGroups_.back().second.id();
    }
    return -1;
}

Id File::keepOpen(const std::string& normalized, Handle group) const {
    // A few suffice: a case's own groups and the one holding the cases.
    constexpr std::size_t kOpenGroups = 8;
    if (openGroups_.size() == kOpenGroups) openGroups_.erase(openGroups_.begin());
    openGroups_.emplace_back(normalized, std::move(group));
    return openGroups_.back().second.id();
}

void File::refuseIfExternal(const std::string& path, const ObjectInfo& found) const {
    if (found.kind == ObjectKind::Link && !found.externalTarget.empty())
        refuseExternal("'" + normalizePath(path) + "' in '" + path_ + "'", "an external link", found.externalTarget);
}

std::string File::requireKind(const std::string& path, ObjectKind wanted) const {
    const std::string normalized = normalizePath(path);
    const ObjectInfo found = info(normalized);
    refuseIfExternal(normalized, found);
    const std::string inFile = "' in file '" + path_ + "'";
    if (found.kind == ObjectKind::Missing)
        throw ContentError("no " + std::string(kindName(wanted)) + " '" + normalized + inFile);
    if (found.kind != wanted)
        throw ContentError("'" + normalized + inFile + " is a " + kindName(found.kind) + ", not a " + kindName(wanted));
    return normalized;
}

bool File::exists(const std::string& path) const { return kindOf(path) != ObjectKind::Missing; }
bool File::isGroup(const std::string& path) const { return kindOf(path) == ObjectKind::Group; }
bool File::isDataset(const std::string& path) const { return kindOf(path) == ObjectKind::Dataset; }

void File::createGroup(const std::string& path) {
    const std::string normalized = normalizePath(path);
    const std::string what = "cannot create group '" + normalized + "' in '" + path_ + "'";
    requireWritable(what);
    const ObjectKind kind = kindOf(normalized);
    if (kind == ObjectKind::Group) return;
    if (kind != ObjectKind::Missing) throw IoError(what + ": '" + normalized + "' is a " + kindName(kind));
    // Name a dataset in the way rather than let HDF5 fail obscurely below it.
    const std::string parent = parentPath(normalized);
    bool parentExists = parent == "/";
    std::vector<std::string> missing = {normalized};
    for (std::string above = parent; above != "/"; above = parentPath(above)) {
        const ObjectKind aboveKind = kindOf(above);
        if (aboveKind == ObjectKind::Group) {
            parentExists = above == parent;
            break;
        }
        if (aboveKind != ObjectKind::Missing) throw IoError(what + ": '" + above + "' is a " + kindName(aboveKind));
        missing.push_back(above);
    }
    if (!groupLinkList_.valid()) {
        groupLinkList_ = h5::open(Handle::Kind::PropertyList, what, [] { return H5Pcreate(H5P_LINK_CREATE); });
        call(what, [&] { return H5Pset_create_intermediate_group(groupLinkList_.id(), 1); });
        // A case's parameters are its group's attributes: keep up to 32 in the object header,
        // where HDF5 writes them far faster than in the dense storage it moves to after 8.
        groupCreateList_ = h5::open(Handle::Kind::PropertyList, what, [] { return H5Pcreate(H5P_GROUP_CREATE); });
        call(what, [&] { return H5Pset_attr_phase_change(groupCreateList_.id(), 32, 24); });
        call(what, [&] { return H5Pset_obj_track_times(groupCreateList_.id(), false); });
    }
    const auto [location, name] = parentExists ? placeOf(normalized) : std::pair<Id, std::string>(id(), normalized);
    Handle group = h5::open(Handle::Kind::Group, what, [&, &location = location, &name = name] {
        return H5Gcreate2(location, name.c_str(), groupLinkList_.id(), groupCreateList_.id(), H5P_DEFAULT);
    });
    for (const std::string& made : missing) noteCreated(made, ObjectKind::Group);
    if (createdHere_)
        keepOpen(normalized, std::move(group));  // its attributes and children come next
    else
        group.close(what);
}

std::vector<std::string> File::children(const std::string& groupPath) const {
    std::vector<std::string> names;
    for (const Link& link : GroupLinks(*this, groupPath).links) names.push_back(link.name);
    return names;
}

std::vector<File::Child> File::listChildren(const std::string& groupPath, const std::string& marker) const {
    const GroupLinks group(*this, groupPath);
    std::vector<Child> out;
    out.reserve(group.links.size());
    const std::string parent = normalizePath(groupPath);
    for (const Link& link : group.links) {
        if (link.type != H5L_TYPE_SOFT) {
            out.push_back({link.name, resolveLink(group.handle.id(), link.name, link.type, group.what), {}});
            const std::string path = (parent == "/" ? "" : parent) + "/" + link.name;
            if (!marker.empty() && link.type == H5L_TYPE_HARD && out.back().info.kind == ObjectKind::Group)
                out.back().marker =
                    stringMarker(group.handle.id(), link.name, marker, "'" + path + "' in '" + path_ + "'");
            continue;
        }
        // HDF5 would follow a soft link through an external one: look it up the careful way.
        const std::string path = (parent == "/" ? "" : parent) + "/" + link.name;
        try {
            out.push_back({link.name, info(path), {}});
        } catch (const ExternalDataError&) {
            out.push_back({link.name, ObjectInfo{ObjectKind::Link, true, 0, {}, "(through a soft link)"}, {}});
        }
    }
    return out;
}

// ---- attributes ----------------------------------------------------------------------------

Handle File::openObject(const std::string& objectPath, const std::string& what) const {
    const ObjectInfo found = info(objectPath);
    refuseIfExternal(objectPath, found);
    const ObjectKind kind = found.kind;
    if (kind == ObjectKind::Missing || kind == ObjectKind::Link)
        throw ContentError("no object '" + objectPath + "' in file '" + path_ + "'");
    const auto [location, name] = placeOf(normalizePath(objectPath));
    return h5::open(Handle::Kind::Object, what,
                    [&, &location = location, &name = name] { return H5Oopen(location, name.c_str(), H5P_DEFAULT); });
}

bool File::hasAttribute(const std::string& objectPath, const std::string& name) const {
    const std::string path = normalizePath(objectPath);
    const std::string what = "cannot look up attribute '" + name + "' of '" + path + "' in '" + path_ + "'";
    Handle object = openObject(path, what);
    return call(what, [&] { return H5Aexists(object.id(), name.c_str()); }) > 0;
}

std::vector<std::string> File::attributeNames(const std::string& objectPath) const {
    const std::string path = normalizePath(objectPath);
    const std::string what = "cannot list the attributes of '" + path + "' in '" + path_ + "'";
    Handle object = openObject(path, what);
    std::vector<std::string> names;
    call(what,
         [&] { return H5Aiterate2(object.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collectAttributeName, &names); });
    std::sort(names.begin(), names.end());
    return names;
}

void File::writeAttributeData(const std::string& objectPath, const std::string& name, Id type, Id space,
                              const void* data) {
    const std::string path = normalizePath(objectPath);
    const std::string what = "cannot write attribute '" + name + "' of '" + path + "' in '" + path_ + "'";
    requireWritable(what);
    // A group this file just created is still open (createGroup): write to it directly.
    Handle opened = createdHere_ && openGroup(path) >= 0 ? Handle() : openObject(path, what);
    const Id object = opened.valid() ? opened.id() : openGroup(path);
    if (call(what, [&] { return H5Aexists(object, name.c_str()); }) > 0)
        call(what, [&] { return H5Adelete(object, name.c_str()); });
    Handle attribute = h5::open(Handle::Kind::Attribute, what, [&] {
        return H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    });
    // Our memory layouts equal the file layouts (native = little-endian on every supported host).
    call(what, [&] { return H5Awrite(attribute.id(), type, data); });
    attribute.close(what);
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, const std::string& value) {
    const std::string what = "cannot write string attribute '" + name + "'";
    const char* text = value.c_str();
    writeAttributeData(objectPath, name, variableStringType(H5T_CSET_UTF8, what).id(), scalarSpace(what).id(), &text);
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, const char* value) {
    writeAttribute(objectPath, name, std::string(value ? value : ""));
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, int64_t value) {
    writeAttributeData(objectPath, name, H5T_NATIVE_INT64, scalarSpace("cannot write attribute").id(), &value);
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, double value) {
    writeAttributeData(objectPath, name, H5T_NATIVE_DOUBLE, scalarSpace("cannot write attribute").id(), &value);
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, bool value) {
    const int8_t byte = value ? 1 : 0;
    writeAttributeData(objectPath, name, makeBoolType().id(), scalarSpace("cannot write attribute").id(), &byte);
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, const std::vector<int64_t>& value) {
    const int64_t none = 0;  // HDF5 wants a buffer even for zero elements
    writeAttributeData(objectPath, name, H5T_NATIVE_INT64, vectorSpace(value.size(), "cannot write attribute").id(),
                       value.empty() ? &none : value.data());
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, const std::vector<double>& value) {
    const double none = 0;
    writeAttributeData(objectPath, name, H5T_NATIVE_DOUBLE, vectorSpace(value.size(), "cannot write attribute").id(),
                       value.empty() ? &none : value.data());
}

void File::writeAttribute(const std::string& objectPath, const std::string& name,
                          const std::vector<std::string>& value) {
    const std::string what = "cannot write string attribute '" + name + "'";
    std::vector<const char*> texts;
    for (const auto& s : value) texts.push_back(s.c_str());
    const char* none = "";
    writeAttributeData(objectPath, name, variableStringType(H5T_CSET_UTF8, what).id(),
                       vectorSpace(value.size(), what).id(), texts.empty() ? &none : texts.data());
}

void File::writeAttribute(const std::string& objectPath, const std::string& name, const std::vector<bool>& value) {
    std::vector<int8_t> bytes;
    for (bool b : value) bytes.push_back(b ? 1 : 0);
    const int8_t none = 0;
    writeAttributeData(objectPath, name, makeBoolType().id(), vectorSpace(value.size(), "cannot write attribute").id(),
                       bytes.empty() ? &none : bytes.data());
}

namespace {

// An attribute's values as Elements: strings, int64 or float64 (numbers convert).
template <class Element>
std::vector<Element> readValues(const AttributeReader& r) {
    if constexpr (std::is_same_v<Element, std::string>)
        return readStrings(r);
    else if constexpr (std::is_same_v<Element, int64_t>)
        return readIntegers(r);
    else
        return readReals(r);
}

// h5py's bool enum, or an integer (non-zero is true).
bool readBool(const AttributeReader& r) {
    if (r.typeClass == H5T_INTEGER) return r.single(r.readAs<int64_t>(H5T_NATIVE_INT64)) != 0;
    if (r.typeClass != H5T_ENUM || !isBoolType(r.type.id())) r.mismatch("bool");
    return r.single(r.readAs<int8_t>(makeBoolType().id())) != 0;
}

template <class T>
constexpr bool kIsVector = false;
template <class Element>
constexpr bool kIsVector<std::vector<Element>> = true;

}  // namespace

template <class T>
T File::readAttribute(const std::string& objectPath, const std::string& name) const {
    const AttributeReader r = openAttribute(*this, objectPath, name);
    if constexpr (std::is_same_v<T, bool>)
        return readBool(r);
    else if constexpr (kIsVector<T>)
        return readValues<typename T::value_type>(r);
    else
        return r.single(readValues<T>(r));
}

// The seven types h5_file.h promises.
template std::string File::readAttribute<std::string>(const std::string&, const std::string&) const;
template int64_t File::readAttribute<int64_t>(const std::string&, const std::string&) const;
template double File::readAttribute<double>(const std::string&, const std::string&) const;
template bool File::readAttribute<bool>(const std::string&, const std::string&) const;
template std::vector<int64_t> File::readAttribute<std::vector<int64_t>>(const std::string&, const std::string&) const;
template std::vector<double> File::readAttribute<std::vector<double>>(const std::string&, const std::string&) const;
template std::vector<std::string> File::readAttribute<std::vector<std::string>>(const std::string&,
                                                                                const std::string&) const;

// ---- shared datatypes ----------------------------------------------------------------------

Handle makeBoolType() {
    const std::string what = "cannot build the bool datatype";
    Handle type = h5::open(Handle::Kind::Datatype, what, [] { return H5Tenum_create(H5T_NATIVE_INT8); });
    const int8_t no = 0, yes = 1;
    call(what, [&] { return H5Tenum_insert(type.id(), "FALSE", &no); });
    call(what, [&] { return H5Tenum_insert(type.id(), "TRUE", &yes); });
    return type;
}

bool isBoolType(Id type) {
    const std::string what = "cannot inspect an enum datatype";
    if (call(what, [&] { return H5Tget_class(type); }) != H5T_ENUM) return false;
    if (call(what, [&] { return H5Tget_size(type); }) != 1) return false;
    if (call(what, [&] { return H5Tget_nmembers(type); }) != 2) return false;
    bool sawFalse = false, sawTrue = false;
    for (unsigned i = 0; i < 2; ++i) {
        std::unique_ptr<char, void (*)(char*)> name(call(what, [&] { return H5Tget_member_name(type, i); }),
                                                    [](char* p) { H5free_memory(p); });
        int8_t value = -1;
        call(what, [&] { return H5Tget_member_value(type, i, &value); });
        sawFalse = sawFalse || (std::strcmp(name.get(), "FALSE") == 0 && value == 0);
        sawTrue = sawTrue || (std::strcmp(name.get(), "TRUE") == 0 && value == 1);
    }
    return sawFalse && sawTrue;
}

std::string describeType(Id type) {
    const std::string what = "cannot inspect a datatype";
    const H5T_class_t typeClass = call(what, [&] { return H5Tget_class(type); });
    const std::string bits = std::to_string(8 * call(what, [&] { return H5Tget_size(type); }));
    switch (typeClass) {
        case H5T_INTEGER:
            return (call(what, [&] { return H5Tget_sign(type); }) == H5T_SGN_NONE ? "uint" : "int") + bits;
        case H5T_FLOAT: return "float" + bits;
        case H5T_ENUM: return isBoolType(type) ? "bool" : "enum";
        case H5T_STRING: return "string";
        case H5T_COMPOUND: return "compound";
        case H5T_OPAQUE: return "opaque";
        case H5T_ARRAY: return "array";
        case H5T_VLEN: return "variable-length sequence";
        case H5T_REFERENCE: return "reference";
        case H5T_BITFIELD: return "bitfield";
        case H5T_TIME: return "time";
        default: return "unknown type";
    }
}

}  // namespace opscope::h5
