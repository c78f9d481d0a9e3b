#include "opscope/ops/tensor_sets.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <unordered_set>

#include "opscope/h5/file_safety.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"

namespace opscope::ops {

TensorSet tensorFileSet(const std::string& file) {
    auto opened = std::make_shared<const import::TensorFile>(file);
    std::vector<std::string> keys = opened->keys();
    return TensorSet{file, std::move(keys), [opened](const std::string& key) { return opened->read(key); }};
}

TensorSet hdf5GroupSet(const std::string& file, const std::string& group, const std::string& name) {
    h5::vetFile(file, {group});  // every dataset below the group, in one child
    auto opened = std::make_shared<const h5::File>(h5::File::openReadOnly(file));
    const h5::ObjectKind kind = opened->info(group).kind;
    if (kind != h5::ObjectKind::Group)
        throw ContentError(kind == h5::ObjectKind::Missing
                               ? "no group '" + group + "' in '" + file + "'"
                               : "'" + group + "' in '" + file + "' is a " + h5::kindName(kind) + ", not a group");
    const std::string prefix = group == "/" ? "" : group;
    std::vector<std::string> keys;
    for (const h5::NodeInfo& n : h5::listTree(*opened, group)) {
        // A member that points outside the file is a sentence, as `run` makes it, not a silently
        // shorter set.
        if (!n.outside().empty() && !h5::externalDataAllowed(file)) {
            const std::string outside = n.outside();  // "external link -> f.h5:/g"
            const std::size_t arrow = outside.find(" -> ");
            h5::refuseExternal("'" + n.path + "' in '" + file + "'", outside.substr(0, arrow),
                               arrow == std::string::npos ? "" : outside.substr(arrow + 4));
        }
        if (n.kind == h5::ObjectKind::Dataset && n.dataset.dtype != DType::Undefined)
            keys.push_back(n.path.substr(prefix.size() + 1));
    }
    return TensorSet{name, std::move(keys), [opened, prefix, name](const std::string& key) {
                         try {
                             return h5::readTensor(*opened, prefix + "/" + key);
                         } catch (const FileError& e) {
                             throw ContentError(name + ": " + e.what());
                         }
                     }};
}

TensorSet tensorFolderSet(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw ContentError("'" + dir + "' is not a folder");
    std::vector<std::string> keys;
    // Symbolic links are not followed: a folder's set is what lies in it.
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
        const std::string key = it->path().lexically_relative(dir).generic_string();
        if (import::isTensorFileSpec(key) && import::tensorFilePath(key) == key) keys.push_back(key);
    }
    if (ec) throw IoError("cannot list '" + dir + "': " + ec.message());
    std::sort(keys.begin(), keys.end());
    const fs::path root(dir);
    return TensorSet{dir, std::move(keys),
                     [root](const std::string& key) { return import::readTensorFile((root / key).string()); }};
}

std::vector<std::string> comparedKeys(const TensorSet& actual, const TensorSet& reference) {
    const std::unordered_set<std::string> inActual(actual.keys.begin(), actual.keys.end());
    std::vector<std::string> keys = actual.keys;
    for (const std::string& k : reference.keys)
        if (!inActual.count(k)) keys.push_back(k);
    return keys;
}

namespace {

// Both tensors of a key read and compared; a key either side cannot read is not compared, its
// sentence the note (and told to control.unreadable), and the other keys go on.
Comparison compareKey(const std::string& key, const TensorSet& actual, const TensorSet& reference,
                      const metrics::Standard& standard, const SetCompareControl& control) {
    HostTensor a, r;
    try {
        a = actual.read(key);
        r = reference.read(key);
    } catch (const FileError& e) {
        if (control.unreadable) control.unreadable(key, e.what());
        return notCompared(key, actual.name, reference.name, std::string("cannot read: ") + e.what(), standard);
    }
    return compareOutput(key, actual.name, a, reference.name, r, judgedDtype(a), standard);
}

}  // namespace

std::vector<Comparison> compareTensorSets(const TensorSet& actual, const TensorSet& reference,
                                          const metrics::Standard& standard, const SetCompareControl& control) {
    const std::unordered_set<std::string> inActual(actual.keys.begin(), actual.keys.end()),
        inReference(reference.keys.begin(), reference.keys.end());
    const std::vector<std::string> keys = comparedKeys(actual, reference);
    std::vector<Comparison> out;
    for (const std::string& key : keys) {
        if (control.cancelled && control.cancelled->load()) break;
        if (!inActual.count(key) || !inReference.count(key)) {
            out.push_back(notCompared(key, actual.name, reference.name,
                                      (inActual.count(key) ? reference.name : actual.name) + " has no '" + key + "'",
                                      standard));
        } else {
            out.push_back(compareKey(key, actual, reference, standard, control));
        }
        if (control.compared) control.compared(out.back(), out.size(), keys.size());
    }
    return out;
}

}  // namespace opscope::ops
