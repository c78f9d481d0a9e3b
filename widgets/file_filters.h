// The file dialogs' name filters: one place for the formats each kind of dialog accepts.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace opscope::gui {

// What File › Open, Compare With File and Compare Checkpoints take: HDF5 files (cases, traces,
// checkpoints) and tensor files (torch.save, safetensors and its shard index, numpy).
inline QString openableFilesFilter() {
    return QCoreApplication::translate("FileFilters",
                                       "HDF5 and tensor files (*.h5 *.hdf5 *.he5 *.pt *.pth *.bin *.safetensors "
                                       "*.index.json *.npz *.npy);;HDF5 files (*.h5 *.hdf5 *.he5);;All files (*)");
}

// What holds HDF5 groups (Compare Group With File).
inline QString hdf5FilesFilter() {
    return QCoreApplication::translate("FileFilters", "HDF5 files (*.h5 *.hdf5 *.he5);;All files (*)");
}

}  // namespace opscope::gui
