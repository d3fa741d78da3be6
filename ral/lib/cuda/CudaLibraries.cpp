//===- CudaLibraries.cpp - Find and dlopen() the CUDA stack -------------------===//
#include "CudaSymbols.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <sys/stat.h>

namespace loupe::ral {

std::vector<std::string> cudaLibrarySearchDirs(bool includeCupti) {
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("LOUPE_CUDA_LIB_DIRS")) {
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      size_t end = s.find(':', start);
      if (end == std::string::npos)
        end = s.size();
      if (end > start)
        dirs.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  if (const char *home = std::getenv("CUDA_HOME"); home && *home) {
    dirs.push_back(std::string(home) + "/lib64");
    if (includeCupti)
      dirs.push_back(std::string(home) + "/extras/CUPTI/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  if (includeCupti)
    dirs.push_back("/usr/local/cuda/extras/CUPTI/lib64");
  std::vector<std::string> unique;
  for (const std::string &d : dirs)
    if (std::find(unique.begin(), unique.end(), d) == unique.end())
      unique.push_back(d);
  return unique;
}

StatusOr<void *> openCudaLibrary(const std::vector<std::string> &sonames, std::string *foundPath,
                                 const std::string &missingWhat, bool includeCupti) {
  std::vector<std::string> dirs = cudaLibrarySearchDirs(includeCupti);
  std::string failures;
  for (const std::string &dir : dirs) {
    for (const std::string &soname : sonames) {
      std::string path = dir + "/" + soname;
      struct stat st;
      if (stat(path.c_str(), &st) != 0)
        continue;
      if (void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        if (foundPath)
          *foundPath = path;
        return handle;
      }
      failures += "; " + path + ": " + dlerror();
    }
  }
  std::string loaderMessage;
  for (const std::string &soname : sonames) {
    if (void *handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      if (foundPath) {
        char origin[4096] = {};
        *foundPath = dlinfo(handle, RTLD_DI_ORIGIN, origin) == 0
                         ? std::string(origin) + "/" + soname
                         : soname;
      }
      return handle;
    }
    if (loaderMessage.empty())
      loaderMessage = dlerror();
  }
  std::string where;
  const char *env = std::getenv("LOUPE_CUDA_LIB_DIRS");
  const char *home = std::getenv("CUDA_HOME");
  if (!env || !*env)
    where += "LOUPE_CUDA_LIB_DIRS (unset), ";
  if (!home || !*home)
    where += "$CUDA_HOME/lib64 (CUDA_HOME unset), ";
  for (const std::string &dir : dirs)
    where += dir + ", ";
  where += "the system loader (" + loaderMessage + ")";
  return unavailable(sonames.front() + " not found in " + where + failures + ": " + missingWhat);
}

Status resolveSymbols(void *library, const std::string &libraryPath,
                      const std::vector<SymbolSpec> &specs) {
  std::string missing;
  for (const SymbolSpec &spec : specs) {
    void *address = dlsym(library, spec.name);
    if (!address && spec.fallback)
      address = dlsym(library, spec.fallback);
    if (!address)
      missing += (missing.empty() ? "" : ", ") + std::string(spec.name);
    *spec.slot = address;
  }
  if (!missing.empty())
    return unavailable(libraryPath + " lacks " + missing +
                       " (a library older than the CUDA headers Loupe was built with?)");
  return Status::ok();
}

std::vector<SymbolSpec> CudaSymbols::specs() {
  std::vector<SymbolSpec> out;
#if LOUPE_RAL_HAVE_CUDA_HEADERS
#define LOUPE_CU_PFN(field, symbol) out.push_back({#symbol, nullptr, reinterpret_cast<void **>(&field)});
#define LOUPE_CU_PFN_ALT(field, symbol, fallback)                                                 \
  out.push_back({#symbol, fallback, reinterpret_cast<void **>(&field)});
#include "CudaSymbols.def"
#undef LOUPE_CU_PFN
#undef LOUPE_CU_PFN_ALT
#endif
  return out;
}

namespace {
template <typename Symbols>
LoadedLibrary<Symbols> loadLibrary(const std::vector<std::string> &sonames, const char *what,
                                   std::vector<SymbolSpec> (*specs)(Symbols &)) {
  LoadedLibrary<Symbols> lib;
  auto handle = openCudaLibrary(sonames, &lib.path, std::string(what) + " is not installed");
  if (!handle) {
    lib.status = handle.status();
    return lib;
  }
  auto *symbols = new Symbols(); // Lives as long as the process (the library is never closed).
  lib.status = resolveSymbols(*handle, lib.path, specs(*symbols));
  if (lib.status.isOk())
    lib.symbols = symbols;
  return lib;
}
} // namespace

#if LOUPE_RAL_HAVE_CUBLAS
const LoadedLibrary<CublasSymbols> &cublasLibrary() {
  static const LoadedLibrary<CublasSymbols> lib = loadLibrary<CublasSymbols>(
      {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}, "cuBLAS",
      [](CublasSymbols &s) {
        std::vector<SymbolSpec> out;
#define LOUPE_CUBLAS_PFN(field, symbol)                                                           \
  out.push_back({#symbol, nullptr, reinterpret_cast<void **>(&s.field)});
#define LOUPE_CUBLASLT_PFN(field, symbol)
#include "CublasSymbols.def"
#undef LOUPE_CUBLAS_PFN
#undef LOUPE_CUBLASLT_PFN
        return out;
      });
  return lib;
}

const LoadedLibrary<CublasLtSymbols> &cublasLtLibrary() {
  static const LoadedLibrary<CublasLtSymbols> lib = loadLibrary<CublasLtSymbols>(
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", "libcublasLt.so"},
      "cuBLASLt", [](CublasLtSymbols &s) {
        std::vector<SymbolSpec> out;
#define LOUPE_CUBLAS_PFN(field, symbol)
#define LOUPE_CUBLASLT_PFN(field, symbol)                                                         \
  out.push_back({#symbol, nullptr, reinterpret_cast<void **>(&s.field)});
#include "CublasSymbols.def"
#undef LOUPE_CUBLAS_PFN
#undef LOUPE_CUBLASLT_PFN
        return out;
      });
  return lib;
}
#endif

#if LOUPE_RAL_HAVE_CUDNN
const LoadedLibrary<CudnnSymbols> &cudnnLibrary() {
  static const LoadedLibrary<CudnnSymbols> lib = loadLibrary<CudnnSymbols>(
      {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"}, "cuDNN", [](CudnnSymbols &s) {
        std::vector<SymbolSpec> out;
#define LOUPE_CUDNN_PFN(symbol)                                                                   \
  out.push_back({#symbol, nullptr, reinterpret_cast<void **>(&s.symbol)});
#include "CudnnSymbols.def"
#undef LOUPE_CUDNN_PFN
        return out;
      });
  return lib;
}
#endif

std::vector<CudaLibraryInfo> probeCudaLibraries() {
  std::vector<CudaLibraryInfo> out;
#if LOUPE_RAL_HAVE_CUDA_HEADERS
  {
    CudaLibraryInfo info{"CUDA driver", "", Status::ok()};
    static std::once_flag once;
    static StatusOr<void *> handle = unavailable("");
    static std::string path;
    std::call_once(once, [] {
      handle = openCudaLibrary({"libcuda.so.1", "libcuda.so"}, &path,
                               "no NVIDIA driver on this machine");
    });
    info.path = path;
    if (!handle) {
      info.status = handle.status();
    } else {
      CudaSymbols symbols;
      info.status = resolveSymbols(*handle, path, symbols.specs());
    }
    out.push_back(std::move(info));
  }
#else
  out.push_back({"CUDA driver", "", unavailable("built without CUDA headers (cuda.h)")});
#endif
#if LOUPE_RAL_HAVE_CUBLAS
  out.push_back({"cuBLAS", cublasLibrary().path, cublasLibrary().status});
  out.push_back({"cuBLASLt", cublasLtLibrary().path, cublasLtLibrary().status});
#else
  out.push_back({"cuBLAS", "", unavailable("built without cuBLAS headers")});
  out.push_back({"cuBLASLt", "", unavailable("built without cuBLASLt headers")});
#endif
#if LOUPE_RAL_HAVE_CUDNN
  out.push_back({"cuDNN", cudnnLibrary().path, cudnnLibrary().status});
#else
  out.push_back({"cuDNN", "", unavailable("built without cuDNN headers")});
#endif
  {
    CudaLibraryInfo info{"CUPTI", "", Status::ok()};
    static std::once_flag once;
    static Status status;
    static std::string path;
    std::call_once(once, [] {
      auto handle = openCudaLibrary({"libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8",
                                     "libcupti.so"},
                                    &path, "CUPTI is not installed", /*includeCupti=*/true);
      status = handle ? Status::ok() : handle.status();
    });
    info.path = path;
    info.status = status;
    out.push_back(std::move(info));
  }
  return out;
}

} // namespace loupe::ral
