// An open HDF5 file addressed by absolute object paths: groups, existence, children and
// attributes in the layouts h5py reads back as Python values.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "opscope/h5/h5_handle.h"

namespace opscope::h5 {

// "a//b/" -> "/a/b"; "" -> "/". Every path argument below goes through this.
std::string normalizePath(const std::string& path);
// "/a/b" -> "/a"; "/a" -> "/". Takes a normalized path.
std::string parentPath(const std::string& normalized);

enum class ObjectKind { Missing, Group, Dataset, Datatype, Link };
// "group", "dataset", "named datatype", "link", "missing object".
const char* kindName(ObjectKind kind);

struct ObjectInfo {
    ObjectKind kind = ObjectKind::Missing;  // Link: an external or dangling soft link
    bool viaSoftLink = false;               // reached through a soft link (which was followed)
    int64_t attributeCount = 0;
    std::string identity;        // opaque; equal for two links to one object
    std::string externalTarget;  // Link: where an external link points, "f.h5:/g"
};

class File {
public:
    // Takes no HDF5 file lock, so viewing a file never blocks the program writing it (a live
    // trace); what such a reader sees is as of the writer's last flush.
    static File openReadOnly(const std::string& path);
    static File openReadWrite(const std::string& path);
    // Creates the file, replacing any existing one.
    static File create(const std::string& path);

    File(File&&) noexcept = default;
    File& operator=(File&&) noexcept = default;

    const std::string& path() const { return path_; }
    bool writable() const { return writable_; }
    Id id() const { return handle_.id(); }
    void flush();
    // Closes now, reporting failures the destructor would have to swallow.
    void close();
    // Throws "<what>: the file is open read-only" unless opened for writing.
    void requireWritable(const std::string& what) const;
    // Whether info() answers a path it has found before from memory (see LookupMemo).
    bool remembersLookups() const { return memo_ != nullptr; }

    // Creates the group and any missing parents; an existing group is left as it is.
    void createGroup(const std::string& path);
    bool exists(const std::string& path) const;
    bool isGroup(const std::string& path) const;
    bool isDataset(const std::string& path) const;
    // What is at `path`, following soft links; in a file created here answered from memory,
    // without asking HDF5 (see lookUpCreated).
    ObjectKind kindOf(const std::string& path) const;
    // For this layer's writers (tensor_io, table): in a created file, records an object made
    // or removed at `normalized` other than through createGroup.
    void noteCreated(const std::string& normalized, ObjectKind kind);
    void noteRemoved(const std::string& normalized);
    // A dataset creation list without timestamps, contiguous or compact, made once per file
    // (writeTensor creates thousands of datasets with one of these two).
    Id plainDatasetCreateList(bool compact, const std::string& what);
    // Metadata only: never reads data. Soft links are followed. An external link is followed
    // only when external data is allowed (file_safety.h): otherwise one at the end of the path
    // is a Link with its externalTarget, and one inside the path throws ExternalDataError.
    ObjectInfo info(const std::string& path) const;
    // Where the object at `normalized` is named from: its parent group, held open, and its own
    // name, in a file created here (a case's objects are written together, so the parent stays
    // open for the next call and no call walks from the root, through a rank group of thousands
    // of calls); elsewhere the file and the whole path. The id is valid until the next call.
    std::pair<Id, std::string> placeOf(const std::string& normalized) const;
    // Whether this file may read what it points at outside itself (file_safety.h).
    bool externalAllowed() const { return externalAllowed_; }
    // Throws ExternalDataError naming the target when `found` (the info of `path`) is an
    // external link this file may not follow.
    void refuseIfExternal(const std::string& path, const ObjectInfo& found) const;
    // The normalized path of an object that must be a `wanted` (a group or a dataset): throws
    // ContentError "no <wanted> '<path>' in file '<file>'" when nothing is there and
    // "'<path>' in file '<file>' is a <kind>, not a <wanted>" for another kind; refuses an
    // external link as refuseIfExternal does.
    std::string requireKind(const std::string& path, ObjectKind wanted) const;
    // Names of the links in a group, sorted.
    std::vector<std::string> children(const std::string& groupPath = "/") const;
    // The same with what each link leads to, in one pass over the group: for tree views.
    // With a `marker` attribute name, each group reached by a hard link also gets the value of
    // that attribute when it holds one string (a case's 'op'), read from the listed group: no
    // lookup from the root per child.
    struct Child {
        std::string name;
        ObjectInfo info;
        std::optional<std::string> marker;
    };
    std::vector<Child> listChildren(const std::string& groupPath = "/", const std::string& marker = {}) const;

    // Attributes of the object at objectPath ("/" for the file itself). Writing replaces an
    // attribute of the same name. Strings are variable-length UTF-8 (h5py reads str), bool
    // is h5py's enum (numpy.bool_), integers int64, reals float64.
    bool hasAttribute(const std::string& objectPath, const std::string& name) const;
    std::vector<std::string> attributeNames(const std::string& objectPath) const;
    void writeAttribute(const std::string& objectPath, const std::string& name, const std::string& value);
    void writeAttribute(const std::string& objectPath, const std::string& name, const char* value);
    void writeAttribute(const std::string& objectPath, const std::string& name, int64_t value);
    void writeAttribute(const std::string& objectPath, const std::string& name, double value);
    void writeAttribute(const std::string& objectPath, const std::string& name, bool value);
    void writeAttribute(const std::string& objectPath, const std::string& name, const std::vector<int64_t>& value);
    void writeAttribute(const std::string& objectPath, const std::string& name, const std::vector<double>& value);
    void writeAttribute(const std::string& objectPath, const std::string& name, const std::vector<std::string>& value);
    // h5py's bool enum, one per element (a mask).
    void writeAttribute(const std::string& objectPath, const std::string& name, const std::vector<bool>& value);
    // Other integer types (int, size_t, ...) are stored as int64.
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    void writeAttribute(const std::string& objectPath, const std::string& name, T value) {
        writeAttribute(objectPath, name, static_cast<int64_t>(value));
    }

    // T is one of the seven written types (std::string, int64_t, double, bool and the vectors of
    // the first three; instantiated in h5_file.cpp). Numbers convert (an int attribute reads as
    // double, a scalar as a one-element vector); other mismatches throw FileError naming both types.
    template <class T>
    T readAttribute(const std::string& objectPath, const std::string& name) const;

private:
    File(Handle handle, std::string path, bool writable);
    static File open(const std::string& path, bool writable);
    // What info() found, by normalized path, in a file opened read-only that no File of this
    // process writes: readers look the same paths up many times (a case's info, then each of its
    // attributes and datasets), each time link by link from the root, and in a file of thousands
    // of cases that was most of `info`, `run` and the vetting. Another process writing the file
    // meanwhile is no worse off: without SWMR, HDF5's own metadata cache answers from what it read
    // before too. A missing path is looked up again each time, a refused external link is refused
    // each time (it throws, and is never stored), and the memo starts again past kMaxRemembered
    // paths, so it stays a few MiB on a file of millions of objects.
    struct LookupMemo {
        static constexpr std::size_t kMaxRemembered = std::size_t(1) << 16;
        std::mutex mutex;  // info() is const and HDF5 is built thread-safe: readers may share a File
        std::unordered_map<std::string, ObjectInfo> found;
    };
    // Opens the object for attribute work; objectPath is normalized.
    Handle openObject(const std::string& objectPath, const std::string& what) const;
    // info() one link at a time from the root, so that no link leaving the file is crossed
    // unseen; `hops` counts the soft links followed so far.
    ObjectInfo lookUp(const std::string& normalized, int hops) const;
    // lookUp in a file this process created: it holds only the groups and datasets this object
    // wrote, through hard links (this layer makes no soft or external links), and created_
    // names every one of them. An absent path costs no HDF5 call; a present one, one.
    ObjectInfo lookUpCreated(const std::string& normalized) const;
    // In a created file: the id of `normalized` when it is one of the open groups, else -1;
    // keepOpen adds one (dropping the oldest) and returns its id.
    Id openGroup(const std::string& normalized) const;
    Id keepOpen(const std::string& normalized, Handle group) const;
    void writeAttributeData(const std::string& objectPath, const std::string& name, Id type, Id space,
                            const void* data);

    Handle handle_;
    std::string path_;
    bool writable_ = false;
    bool externalAllowed_ = false;
    bool createdHere_ = false;          // by create(): see lookUpCreated
    std::unique_ptr<LookupMemo> memo_;  // read-only and not written by this process: see LookupMemo
    // In a created file: every object written through this object, by normalized path.
    std::unordered_map<std::string, ObjectKind> created_;
    // In a created file: the groups placeOf() opened last, most recently used at the back.
    mutable std::vector<std::pair<std::string, Handle>> openGroups_;
    // In a created file: the link and group creation lists every createGroup uses.
    Handle groupLinkList_, groupCreateList_;
    Handle datasetCreateLists_[2];  // plainDatasetCreateList: contiguous, compact
};

// numpy bool as h5py stores it, an int8 enum {FALSE = 0, TRUE = 1}; for attributes and tensors.
Handle makeBoolType();
bool isBoolType(Id type);
// What a datatype holds, for messages and tree views: "float32", "uint8", "bool", "string",
// "compound", "enum", ... (a 2-byte IEEE float is "float16").
std::string describeType(Id type);

}  // namespace opscope::h5
