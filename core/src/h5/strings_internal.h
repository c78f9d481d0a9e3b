// Variable-length string plumbing shared by attributes (h5_file.cpp) and string tables
// (table.cpp). Internal: includes hdf5.h.
#pragma once

#include <hdf5.h>

#include <string>

#include "opscope/h5/h5_handle.h"

namespace opscope::h5::detail {

inline Handle variableStringType(H5T_cset_t cset, const std::string& what) {
    Handle type = open(Handle::Kind::Datatype, what, [] { return H5Tcopy(H5T_C_S1); });
    call(what, [&] { return H5Tset_size(type.id(), H5T_VARIABLE); });
    call(what, [&] { return H5Tset_cset(type.id(), cset); });
    return type;
}

inline herr_t reclaimVariableLength(hid_t type, hid_t space, void* buffer) {
#if H5_VERSION_GE(1, 12, 0)
    return H5Treclaim(type, space, H5P_DEFAULT, buffer);
#else
    return H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
#endif
}

// Gives HDF5's string allocations back however the reader's copies end.
struct ReclaimOnExit {
    hid_t type, space;
    void* buffer;
    ~ReclaimOnExit() {
        probe([&] { return reclaimVariableLength(type, space, buffer); });
    }
};

}  // namespace opscope::h5::detail
