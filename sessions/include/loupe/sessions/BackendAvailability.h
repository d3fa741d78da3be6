//===- BackendAvailability.h - Can this machine run a backend's kernel? -*- C++ -*-===//
#ifndef LOUPE_SESSIONS_BACKENDAVAILABILITY_H
#define LOUPE_SESSIONS_BACKENDAVAILABILITY_H

#include <string>

namespace loupe::sessions {

/// Empty when this machine can run `kernel` (a RAL API prefix, "" for generated code) of
/// `backend` on `device` ("cpu", "gpu"), else why not: on "gpu" the CUDA driver and the
/// backend's vendor library (cuBLAS, cuDNN) must load, and generated code needs the cuda target;
/// a kernel must be registered in the RAL for the device once the kernel plugins are loaded.
/// Shared by `loupe backends list` and the GUI's dispatch table.
std::string unavailableReason(const std::string &backend, const std::string &kernel,
                              const std::string &device);

} // namespace loupe::sessions

#endif // LOUPE_SESSIONS_BACKENDAVAILABILITY_H
