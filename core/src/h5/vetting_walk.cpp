// The child's side of vetting: read a file the way the commands and the debugger will, through
// the same readers, so that whatever libhdf5 does with damaged bytes happens here first.
#include <algorithm>
#include <memory>
#include <new>

#include "opscope/case_file.h"
#include "opscope/h5/attribute_value.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/row_major_blocks.h"
#include "opscope/trace.h"

namespace opscope::h5 {
namespace {

// A reader's sentence is the command's to report, not ours: go on with the next read. Running
// out of memory is the vetting's answer, so it propagates.
template <class Fn>
void attempt(Fn&& fn) {
    try {
        fn();
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {}
}

void readAttributes(const File& f, const std::string& objectPath) {
    std::vector<std::string> names;
    attempt([&] { names = f.attributeNames(objectPath); });
    for (const std::string& name : names) {
        attempt([&] { describeAttribute(f, objectPath, name); });
        attempt([&] { attributeText(f, objectPath, name); });
    }
}

// A dataset a command reads (one named, or each of a group's in a key-by-key compare): whole,
// or a big one in the bands a compare reads it in (ops::compareTensors), so that vetting a
// checkpoint with a 10 GiB embedding needs a band of memory, not 10 GiB (read whole under the
// child's memory limit, its allocation failed and it went unread). A command that reads it whole
// (run --bind) decodes the same chunks.
void readMember(const File& f, const NodeInfo& n) {
    const DatasetInfo& info = n.dataset;
    const uint64_t bytes = static_cast<uint64_t>(info.numel()) * dtypeSize(info.dtype);
    if (info.dtype == DType::Undefined || bytes <= kStreamBandBytes) {
        attempt([&] { readTensor(f, n.path); });
        return;
    }
    for (const TensorBlock& b : rowMajorBlocks(info.shape, dtypeSize(info.dtype), kStreamBandBytes))
        attempt([&] { readTensorBlock(f, n.path, b.start, b.count); });
}

// A dataset named by its path, as readMember reads it (whole when its description fails).
void readNamedDataset(const File& f, const std::string& path) {
    NodeInfo n;
    n.path = path;
    attempt([&] { n.dataset = datasetInfo(f, path); });
    readMember(f, n);
}

// A case group reads that case, a dataset that tensor, another group every dataset below it.
void readDataAt(const File& f, const std::string& d) {
    bool isCase = false, isDataset = false;
    attempt([&] { isCase = cases::isCaseGroup(f, d); });
    attempt([&] { isDataset = f.isDataset(d); });
    if (isCase) {
        attempt([&] { cases::readCase(f, d); });
    } else if (isDataset) {
        readNamedDataset(f, d);
    } else {
        std::vector<NodeInfo> below;
        attempt([&] { below = listTree(f, d); });
        for (const NodeInfo& n : below)
            if (n.kind == ObjectKind::Dataset) readMember(f, n);
    }
}

// Whether the file is a trace, and (listed when asked) a case file's case groups.
struct FileCases {
    bool trace = false;
    std::vector<std::string> paths;
};

FileCases casesOf(const File& f, bool listCases) {
    FileCases c;
    attempt([&] { c.trace = cases::isTraceFile(f); });
    if (!c.trace && listCases) attempt([&] { c.paths = cases::findCases(f); });
    return c;
}

// Tensor data, where the command will read it (see walkUntrusted); `listed` holds the case paths
// when a data path is "/".
void readData(const File& f, const std::string& path, const std::vector<std::string>& dataPaths,
              const FileCases& listed) {
    for (const std::string& raw : dataPaths) {
        const std::string d = normalizePath(raw);
        if (d == "/" && listed.trace) {
            attempt([&] { cases::casesFromTrace(path); });
        } else if (d == "/") {
            for (const std::string& c : listed.paths) attempt([&] { cases::readCase(f, c); });
        } else if (listed.trace && d.rfind("/executors/", 0) == 0) {
            attempt([&] { cases::caseFromTrace(f, d); });
        } else {
            readDataAt(f, d);
        }
    }
}

void readBlocks(const File& f, const std::vector<DataBlock>& blocks) {
    for (const DataBlock& b : blocks) attempt([&] { readTensorBlock(f, b.dataset, b.start, b.count); });
}

std::unique_ptr<File> openUntrusted(const std::string& path) {
    std::unique_ptr<File> file;
    attempt([&] { file = std::make_unique<File>(File::openReadOnly(path)); });
    return file;
}

}  // namespace

void readDataUntrusted(const std::string& path, const std::vector<std::string>& dataPaths,
                       const std::vector<DataBlock>& blocks) {
    const std::unique_ptr<File> file = openUntrusted(path);
    if (!file) return;
    if (!dataPaths.empty()) {
        const bool all = std::any_of(dataPaths.begin(), dataPaths.end(),
                                     [](const std::string& d) { return normalizePath(d) == "/"; });
        readData(*file, path, dataPaths, casesOf(*file, all));  // a shard's cases: no listing of all
    }
    readBlocks(*file, blocks);
}

void walkUntrusted(const std::string& path, const std::vector<std::string>& dataPaths,
                   const std::vector<DataBlock>& blocks) {
    const std::unique_ptr<File> file = openUntrusted(path);
    if (!file) return;
    const File& f = *file;

    // What info, run and the debugger's case list read.
    const FileCases listed = casesOf(f, true);
    if (listed.trace) attempt([&] { readTrace(f, TraceValues::Skip); });
    for (const std::string& c : listed.paths) {
        attempt([&] { cases::inspectCase(f, c); });
        attempt([&] { f.readAttribute<std::string>(c, cases::kOpAttribute); });
    }

    // What info --tree --attrs and the file browser read: every object and attribute.
    std::vector<NodeInfo> nodes;
    attempt([&] { nodes = listTree(f, "/"); });
    readAttributes(f, "/");
    for (const NodeInfo& n : nodes) {
        attempt([&] { f.info(n.path); });
        readAttributes(f, n.path);
    }

    readData(f, path, dataPaths, listed);
    readBlocks(f, blocks);
}

}  // namespace opscope::h5
