#include "session/dataset_read.h"

#include <stdexcept>

#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"

namespace opscope::gui {

HostTensor readDatasetVetted(const std::string& file, const std::string& path) {
    h5::vetFile(file, {path});
    const h5::File f = h5::File::openReadOnly(file);
    const h5::ObjectKind kind = f.info(path).kind;
    if (kind == h5::ObjectKind::Missing) throw std::runtime_error("no dataset '" + path + "' in '" + file + "'");
    if (kind != h5::ObjectKind::Dataset)
        throw std::runtime_error("'" + path + "' in '" + file + "' is a " + h5::kindName(kind) + ", not a dataset");
    return h5::readTensor(f, path);
}

}  // namespace opscope::gui
