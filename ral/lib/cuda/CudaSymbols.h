//===- CudaSymbols.h - dlsym()ed tables of the CUDA stack (internal) -*- C++ -*-===//
//
// One struct of function pointers per library, declared from the .def tables beside this file
// with the exact types of the toolkit headers (decltype of the declared function), filled by
// resolveSymbols(). Compiled only with the headers (LOUPE_RAL_HAVE_CUDA_HEADERS); without them
// the structs are empty and every library reports "built without CUDA headers".
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_LIB_CUDA_CUDASYMBOLS_H
#define LOUPE_RAL_LIB_CUDA_CUDASYMBOLS_H

#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/Status.h"

#include <string>
#include <vector>

#if LOUPE_RAL_HAVE_CUDA_HEADERS
#include <cuda.h>
#endif
#if LOUPE_RAL_HAVE_CUBLAS_V2_H && LOUPE_RAL_HAVE_CUBLASLT_H
#define LOUPE_RAL_HAVE_CUBLAS 1
#include <cublasLt.h>
#include <cublas_v2.h>
#endif
#if LOUPE_RAL_HAVE_CUDNN_H
#define LOUPE_RAL_HAVE_CUDNN 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cudnn.h>
#pragma GCC diagnostic pop
#endif

namespace loupe::ral {

/// One entry of a symbol table: where to store the address of `name` (or of `fallback`).
struct SymbolSpec {
  const char *name;
  const char *fallback; ///< Older name tried when `name` is missing, or nullptr.
  void **slot;
};

/// dlsym()s every spec from `library`; the error (kUnavailable) lists every missing symbol and
/// names `libraryPath` (an older library than the headers, usually).
Status resolveSymbols(void *library, const std::string &libraryPath,
                      const std::vector<SymbolSpec> &specs);

struct CudaSymbols {
#if LOUPE_RAL_HAVE_CUDA_HEADERS
#define LOUPE_CU_PFN(field, symbol) decltype(&::symbol) field = nullptr;
#define LOUPE_CU_PFN_ALT(field, symbol, fallback) decltype(&::symbol) field = nullptr;
#include "CudaSymbols.def"
#undef LOUPE_CU_PFN
#undef LOUPE_CU_PFN_ALT
#endif
  std::vector<SymbolSpec> specs();
};

#if LOUPE_RAL_HAVE_CUBLAS
struct CublasSymbols {
#define LOUPE_CUBLAS_PFN(field, symbol) decltype(&::symbol) field = nullptr;
#define LOUPE_CUBLASLT_PFN(field, symbol)
#include "CublasSymbols.def"
#undef LOUPE_CUBLAS_PFN
#undef LOUPE_CUBLASLT_PFN
};
struct CublasLtSymbols {
#define LOUPE_CUBLAS_PFN(field, symbol)
#define LOUPE_CUBLASLT_PFN(field, symbol) decltype(&::symbol) field = nullptr;
#include "CublasSymbols.def"
#undef LOUPE_CUBLAS_PFN
#undef LOUPE_CUBLASLT_PFN
};
#endif

#if LOUPE_RAL_HAVE_CUDNN
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct CudnnSymbols {
#define LOUPE_CUDNN_PFN(symbol) decltype(&::symbol) symbol = nullptr;
#include "CudnnSymbols.def"
#undef LOUPE_CUDNN_PFN
};
#pragma GCC diagnostic pop
#endif

/// A vendor library loaded once per process (on first use; thread-safe): the symbols when
/// everything resolved, else null and `status` says why.
template <typename Symbols> struct LoadedLibrary {
  const Symbols *symbols = nullptr;
  std::string path;
  Status status;
};
#if LOUPE_RAL_HAVE_CUBLAS
const LoadedLibrary<CublasSymbols> &cublasLibrary();
const LoadedLibrary<CublasLtSymbols> &cublasLtLibrary();
#endif
#if LOUPE_RAL_HAVE_CUDNN
const LoadedLibrary<CudnnSymbols> &cudnnLibrary();
#endif

} // namespace loupe::ral

#endif // LOUPE_RAL_LIB_CUDA_CUDASYMBOLS_H
