//===- Artifact.cpp - Load and run a compiled artifact ----------------------===//
#include "loupe/ral/Artifact.h"

#include "ApiCache.h"

#include "loupe/ral/Context.h"
#include "loupe/ral/CudaDriver.h"
#include "loupe/ral/ral_api.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <filesystem>
#include <sys/stat.h>

namespace loupe::ral {

namespace {
thread_local Tracer *currentTracer = nullptr;
thread_local const std::vector<DispatchNames> *currentNames = nullptr;

/// Sets the calling thread's tracer (and the names of its dispatches) for one execution.
class TracerScope {
public:
  TracerScope(Tracer *tracer, const std::vector<DispatchNames> *names)
      : previous_(currentTracer), previousNames_(currentNames) {
    currentTracer = tracer;
    currentNames = names;
  }
  ~TracerScope() {
    currentTracer = previous_;
    currentNames = previousNames_;
  }

private:
  Tracer *previous_;
  const std::vector<DispatchNames> *previousNames_;
};

DispatchEvent v1Event(int64_t id) {
  DispatchEvent event;
  event.dispatchId = id;
  if (currentNames && id >= 0 && static_cast<size_t>(id) < currentNames->size()) {
    event.name = (*currentNames)[id].name;
    event.backend = (*currentNames)[id].backend;
    event.loc = (*currentNames)[id].loc;
  }
  return event;
}
} // namespace

} // namespace loupe::ral

// Hooks imported by loupe-entry-v1 artifacts (see loupe-instrument-dispatches); resolved by the
// dynamic loader. They reach the tracer as DispatchEvents named from the manifest.
extern "C" __attribute__((visibility("default"))) void loupe_ral_dispatch_begin(int64_t id) {
  if (auto *tracer = loupe::ral::currentTracer)
    tracer->onDispatchBegin(loupe::ral::v1Event(id));
}
extern "C" __attribute__((visibility("default"))) void loupe_ral_dispatch_end(int64_t id) {
  if (auto *tracer = loupe::ral::currentTracer)
    tracer->onDispatchEnd(loupe::ral::v1Event(id));
}

namespace loupe::ral {

std::string TensorSpec::typeString() const {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

/// `j` as an int64_t: a float or an integer beyond int64_t is a JSON type error (converting it
/// would be undefined behaviour).
static int64_t integerOf(const nlohmann::json &j) {
  if (!j.is_number_integer() ||
      (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())))
    throw nlohmann::json::type_error::create(302, "expected an integer", &j);
  return j.get<int64_t>();
}

/// The integers of JSON array `j` (integerOf each).
static std::vector<int64_t> integersOf(const nlohmann::json &j) {
  if (!j.is_array())
    throw nlohmann::json::type_error::create(302, "expected an array of integers", &j);
  std::vector<int64_t> out;
  for (const auto &e : j)
    out.push_back(integerOf(e));
  return out;
}

StatusOr<Manifest> parseManifest(const std::string &text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object())
    return invalidArgument("artifact manifest is not a JSON object");
  Manifest m;
  try {
    int64_t version = integerOf(json.at("version"));
    if (version != LOUPE_MANIFEST_VERSION)
      return invalidArgument("artifact manifest version " + std::to_string(version) +
                             " is not supported (expected " +
                             std::to_string(LOUPE_MANIFEST_VERSION) + ")");
    m.version = LOUPE_MANIFEST_VERSION;
    m.abi = json.at("abi").get<std::string>();
    m.model = json.value("model", "");
    m.target = json.at("target").get<std::string>();
    m.entry = json.at("entry").get<std::string>();
    auto tensors = [](const nlohmann::json &list, std::vector<TensorSpec> &out) -> Status {
      for (const auto &t : list) {
        auto dtype = parseDType(t.at("dtype").get<std::string>());
        if (!dtype)
          return invalidArgument("artifact manifest: unknown dtype '" +
                                 t.at("dtype").get<std::string>() + "'");
        out.push_back({*dtype, integersOf(t.at("shape")),
                       t.value("specialized", std::vector<double>())});
        std::optional<int64_t> elements = checkedNumElements(out.back().shape);
        if (!elements || *elements > std::numeric_limits<int64_t>::max() / 16)
          return invalidArgument("artifact manifest: the shape of " + out.back().typeString() +
                                 " is negative or its size overflows");
        int64_t n = *elements;
        if (!out.back().specialized.empty() &&
            out.back().specialized.size() != static_cast<size_t>(n))
          return invalidArgument("artifact manifest: a specialized value of " +
                                 std::to_string(out.back().specialized.size()) +
                                 " elements for " + out.back().typeString());
      }
      return Status::ok();
    };
    if (Status s = tensors(json.at("inputs"), m.inputs); !s)
      return s;
    if (Status s = tensors(json.at("outputs"), m.outputs); !s)
      return s;
    for (const auto &d : json.at("dispatches"))
      m.dispatches.push_back({integerOf(d.at("id")), d.at("name").get<std::string>(),
                              d.at("op").get<std::string>(), d.at("loc").get<std::string>(),
                              d.value("backend", std::string()), d.value("kind", std::string()),
                              d.value("reason", std::string()),
                              d.contains("cluster") ? integerOf(d["cluster"]) : -1,
                              d.value("fallbacks", std::vector<std::string>()),
                              d.contains("bytes") ? integerOf(d["bytes"]) : 0,
                              d.contains("flops") ? integerOf(d["flops"]) : 0,
                              d.value("schedule", std::string()),
                              d.value("launch", std::string()),
                              d.value("signature", std::string()),
                              d.value("math", std::string())});
    if (json.contains("weights"))
      m.weightBytes = integerOf(json.at("weights").at("bytes"));
    if (m.weightBytes < 0)
      return invalidArgument("artifact manifest: negative weight bytes");
    if (json.contains("buffer_plan")) {
      const auto &plan = json.at("buffer_plan");
      m.bufferPlan = BufferPlan{integerOf(plan.at("arena_bytes")),
                                integerOf(plan.at("planned_buffers")),
                                integerOf(plan.at("planned_bytes")),
                                integerOf(plan.at("unplanned_buffers")),
                                integerOf(plan.at("unplanned_bytes"))};
      const BufferPlan &b = *m.bufferPlan;
      if (std::min({b.arenaBytes, b.plannedBuffers, b.plannedBytes, b.unplannedBuffers,
                    b.unplannedBytes}) < 0)
        return invalidArgument("artifact manifest: negative buffer_plan field");
    }
    if (json.contains("ral_apis"))
      m.ralApis = json.at("ral_apis").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception &e) {
    return invalidArgument(std::string("artifact manifest: ") + e.what());
  }
  return m;
}

/// Checks that the file holds every byte its ELF headers name (the segments the loader maps
/// and the section headers): dlopen maps a truncated file, and touching a page past its end
/// raises SIGBUS.
static Status checkElfComplete(const std::string &path, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char *>(&header), sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    return invalidArgument(path + ": not a loadable artifact (not a 64-bit ELF file)");
  auto beyond = [&](uint64_t offset, uint64_t bytes) {
    return offset > size || bytes > size - offset;
  };
  auto truncated = [&](const std::string &what) {
    return invalidArgument(path + ": truncated artifact (" + std::to_string(size) +
                           " bytes, " + what + " lies beyond the end); recompile it");
  };
  if (beyond(header.e_shoff, uint64_t(header.e_shnum) * header.e_shentsize))
    return truncated("the section header table");
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      beyond(header.e_phoff, uint64_t(header.e_phnum) * sizeof(Elf64_Phdr)))
    return truncated("the program header table");
  in.seekg(std::streamoff(header.e_phoff));
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!in.read(reinterpret_cast<char *>(&segment), sizeof segment))
      return truncated("program header " + std::to_string(i));
    if (segment.p_type == PT_LOAD && beyond(segment.p_offset, segment.p_filesz))
      return truncated("segment " + std::to_string(i));
  }
  return Status::ok();
}

StatusOr<std::shared_ptr<Artifact>> Artifact::load(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return notFound(path + ": no such artifact");
  if (!S_ISREG(st.st_mode))
    return invalidArgument(path + ": not a loadable artifact (not a regular file)");
  if (Status s = checkElfComplete(path, static_cast<uint64_t>(st.st_size)); !s)
    return s;
  // An absolute path, so dlopen never searches the library path for a bare file name.
  std::string absolute = std::filesystem::absolute(path).string();
  void *handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return invalidArgument(path + ": not a loadable artifact: " + dlerror());
  std::shared_ptr<Artifact> artifact(new Artifact());
  artifact->path_ = path;
  artifact->handle_ = handle;
  auto *manifest = static_cast<const char *>(dlsym(handle, LOUPE_MANIFEST_SYMBOL));
  if (!manifest)
    return invalidArgument(path + ": not a Loupe artifact (no " LOUPE_MANIFEST_SYMBOL ")");
  auto parsed = parseManifest(manifest);
  if (!parsed)
    return Status(parsed.status().code(), path + ": " + parsed.status().message());
  if (parsed->abi == "loupe-entry-v1") {
    artifact->entry_ = reinterpret_cast<void (*)(void **)>(dlsym(handle, "loupe_entry"));
    if (!artifact->entry_)
      return invalidArgument(path + ": a loupe-entry-v1 artifact without loupe_entry");
  } else if (parsed->abi == LOUPE_RAL_ABI) {
    artifact->ralEntry_ =
        reinterpret_cast<void (*)(void *)>(dlsym(handle, LOUPE_RAL_ENTRY_SYMBOL));
    if (!artifact->ralEntry_)
      return invalidArgument(path + ": a " LOUPE_RAL_ABI " artifact without " LOUPE_RAL_ENTRY_SYMBOL);
  } else {
    return invalidArgument(path + ": unsupported artifact ABI '" + parsed->abi + "'");
  }
  artifact->manifest_ = std::move(*parsed);
  auto names = std::make_shared<std::vector<DispatchNames>>();
  for (const DispatchInfo &d : artifact->manifest_.dispatches) {
    if (d.id < 0 || d.id > 1000000)
      continue;
    if (names->size() <= static_cast<size_t>(d.id))
      names->resize(d.id + 1);
    (*names)[d.id] = {d.name.c_str(), d.backend.c_str(), d.loc.c_str(), &d.fallbacks};
  }
  artifact->dispatchNames_ = names;
  if (artifact->ralEntry_) {
    ContextOptions options;
    options.useCuda = artifact->manifest_.target == "cuda" || artifact->manifest_.target == "gpu";
    options.requiredApis = artifact->manifest_.ralApis;
    auto context = Context::create(options);
    if (!context)
      return Status(context.status().code(), path + ": " + context.status().message());
    artifact->context_ = std::move(*context);
    if (artifact->manifest_.weightBytes > 0) {
      const void *weights = dlsym(handle, LOUPE_RAL_WEIGHTS_SYMBOL);
      if (!weights)
        return invalidArgument(path + ": the manifest lists " +
                               std::to_string(artifact->manifest_.weightBytes) +
                               " bytes of weights but there is no " LOUPE_RAL_WEIGHTS_SYMBOL);
      artifact->context_->setWeights(weights, static_cast<size_t>(artifact->manifest_.weightBytes));
    }
  }
  return artifact;
}

Artifact::~Artifact() {
  context_.reset(); // Kernels loaded from the artifact's blobs go before the artifact does.
  if (handle_)
    dlclose(handle_);
  // The artifact's string literals may be reused by the next one loaded at the same address.
  detail::invalidateApiCaches();
}

/// `v` as the shortest decimal that reads back as `v`, for messages.
static std::string formatNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  for (int digits = 1; digits < 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
    if (std::strtod(shorter, nullptr) == v)
      return shorter;
  }
  return text;
}

Status Artifact::checkInputs(const std::vector<Tensor> &inputs) const {
  if (inputs.size() != manifest_.inputs.size())
    return invalidArgument("the artifact takes " + std::to_string(manifest_.inputs.size()) +
                           " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &spec = manifest_.inputs[i];
    if (inputs[i].dtype() != spec.dtype || inputs[i].shape() != spec.shape)
      return invalidArgument("input " + std::to_string(i) + " is " + inputs[i].typeString() +
                             ", the artifact expects " + spec.typeString());
    for (size_t e = 0; e < spec.specialized.size(); ++e)
      if (inputs[i].elementAsDouble(e) != spec.specialized[e])
        return invalidArgument(
            "input " + std::to_string(i) + " element " + std::to_string(e) + " is " +
            formatNumber(inputs[i].elementAsDouble(e)) + ", but the artifact was specialized to " +
            formatNumber(spec.specialized[e]) +
            " (the model reads this input as a shape tensor): compile for this value");
  }
  return Status::ok();
}

/// Zeroed tensors of `specs`' types; the error names the tensor.
static StatusOr<std::vector<Tensor>> allocateAll(const std::vector<TensorSpec> &specs,
                                                 const char *what) {
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < specs.size(); ++i) {
    StatusOr<Tensor> t = Tensor::allocate(specs[i].dtype, specs[i].shape);
    if (!t)
      return Status(t.status().code(),
                    std::string(what) + " " + std::to_string(i) + ": " + t.status().message());
    tensors.push_back(std::move(*t));
  }
  return tensors;
}

StatusOr<std::vector<Tensor>> Artifact::randomInputs(uint64_t seed) const {
  std::mt19937_64 rng(seed);
  StatusOr<std::vector<Tensor>> inputs = allocateAll(manifest_.inputs, "input");
  if (!inputs)
    return inputs;
  for (size_t index = 0; index < manifest_.inputs.size(); ++index) {
    const TensorSpec &spec = manifest_.inputs[index];
    Tensor &t = (*inputs)[index];
    int64_t n = t.numElements();
    switch (spec.dtype) {
    case DType::F32: {
      std::uniform_real_distribution<float> d(-1.f, 1.f);
      for (int64_t i = 0; i < n; ++i)
        t.dataAs<float>()[i] = d(rng);
      break;
    }
    case DType::F64: {
      std::uniform_real_distribution<double> d(-1., 1.);
      for (int64_t i = 0; i < n; ++i)
        t.dataAs<double>()[i] = d(rng);
      break;
    }
    case DType::I64:
      for (int64_t i = 0; i < n; ++i)
        t.dataAs<int64_t>()[i] = static_cast<int64_t>(rng() % 10);
      break;
    case DType::I32:
      for (int64_t i = 0; i < n; ++i)
        t.dataAs<int32_t>()[i] = static_cast<int32_t>(rng() % 10);
      break;
    default: // Byte-sized and half types: small non-negative bit patterns.
      for (size_t i = 0; i < t.byteSize(); ++i)
        static_cast<uint8_t *>(t.data())[i] = static_cast<uint8_t>(rng() % 2);
    }
    for (size_t i = 0; i < spec.specialized.size(); ++i)
      t.setElementFromDouble(static_cast<int64_t>(i), spec.specialized[i]);
  }
  return inputs;
}

StatusOr<std::vector<Tensor>> Artifact::allocateOutputs() const {
  return allocateAll(manifest_.outputs, "output");
}

/// A memref descriptor as 8-byte slots: {allocated, aligned, offset, sizes[N], strides[N]}.
static void appendDescriptor(std::vector<int64_t> &slots, const Tensor &tensor) {
  auto ptr = reinterpret_cast<int64_t>(tensor.data());
  slots.push_back(ptr);
  slots.push_back(ptr);
  slots.push_back(0);
  const auto &shape = tensor.shape();
  for (int64_t size : shape)
    slots.push_back(size);
  int64_t stride = 1;
  std::vector<int64_t> strides(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  slots.insert(slots.end(), strides.begin(), strides.end());
}

Status Artifact::runRal(const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs,
                        Tracer *tracer) const {
  ExecutionContext execution(*context_);
  execution.setTracer(tracer);
  execution.setDispatchTable(dispatchNames_.get());
  bool onGpu = manifest_.target == "cuda" || manifest_.target == "gpu";
  std::vector<uint64_t> deviceInputs;
  auto cleanup = [&] {
    if (auto cuda = context_->cuda(); cuda && onGpu)
      for (uint64_t p : deviceInputs)
        (void)(*cuda)->free(p); // Cleanup: the run's own status is what counts.
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    Status s;
    if (onGpu) {
      auto cuda = context_->cuda();
      if (!cuda)
        return cuda.status();
      auto ptr = (*cuda)->alloc(inputs[i].byteSize());
      if (!ptr) {
        cleanup();
        return ptr.status();
      }
      deviceInputs.push_back(*ptr);
      if (Status c = (*cuda)->memcpyHtoD(*ptr, inputs[i].data(), inputs[i].byteSize()); !c) {
        cleanup();
        return c;
      }
      BufferView view;
      view.data = reinterpret_cast<void *>(*ptr);
      view.dtype = inputs[i].dtype();
      view.shape = inputs[i].shape();
      view.device = DeviceKind::kGpu;
      s = execution.bindInput(static_cast<int64_t>(i), std::move(view));
    } else {
      s = execution.bindInput(static_cast<int64_t>(i), inputs[i]);
    }
    if (!s) {
      cleanup();
      return s;
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (Status s = execution.bindOutput(static_cast<int64_t>(i), &outputs[i]); !s)
      return s;
  ralEntry_(&execution);
  Status status = execution.finish();
  cleanup();
  if (!status)
    return status;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!execution.isOutputSent(static_cast<int64_t>(i)))
      return internalError("the artifact returned without sending output " + std::to_string(i));
  return Status::ok();
}

Status Artifact::run(const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs,
                     Tracer *tracer) const {
  if (Status s = checkInputs(inputs); !s)
    return s;
  if (outputs.size() != manifest_.outputs.size())
    return invalidArgument("the artifact has " + std::to_string(manifest_.outputs.size()) +
                           " outputs, got " + std::to_string(outputs.size()) + " buffers");
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].dtype() != manifest_.outputs[i].dtype ||
        outputs[i].shape() != manifest_.outputs[i].shape)
      return invalidArgument("output buffer " + std::to_string(i) + " is " +
                             outputs[i].typeString() + ", the artifact writes " +
                             manifest_.outputs[i].typeString());
  if (ralEntry_)
    return runRal(inputs, outputs, tracer);

  std::vector<int64_t> slots;
  std::vector<size_t> offsets;
  auto add = [&](const Tensor &t) {
    offsets.push_back(slots.size());
    appendDescriptor(slots, t);
  };
  for (const Tensor &t : inputs)
    add(t);
  for (const Tensor &t : outputs)
    add(t);
  std::vector<void *> args;
  for (size_t offset : offsets)
    args.push_back(&slots[offset]);

  TracerScope scope(tracer, dispatchNames_.get());
  entry_(args.data());
  return Status::ok();
}

} // namespace loupe::ral
