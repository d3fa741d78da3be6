//===- Registry.h - Register C++ functions as type-erased RAL APIs -*- C++ -*-===//
//
// After BladeDISC's TAO_RAL_API (tao_compiler/mlir/ral/ral_helper.h; seed 000): an ordinary C++
// function whose first argument is the ExecutionContext* is registered with
//
//   LOUPE_RAL_API("ral_gemm_onednn", "cpu", gemmOneDnn<float>);
//
// which, at compile time, (1) derives the full encoded name from the function's C++ signature,
// e.g. "ral_gemm_onednn___cpu___pvoid_m2df32_m2df32_m2df32_i1_i1___void", and (2) generates the
// type-erased wrapper `void(void **args)` that unpacks the argument slots (ral_api.h) into typed
// C++ arguments and writes the result to the slot after them; a static initializer then adds it
// to Registry::global(). A second registration of the same full name is a registration error:
// the first one stays, the error is kept in Registry::status() and reported by `loupe ral list`
// and by Context::create, never by aborting.
//
// Supported types and their codes: bool i1; int8/16/32/64_t i8..i64; uint8/16/32_t ui8..ui32;
// size_t/uint64_t i64 (DESIGN.md: index/size_t = i64); ui64_t (unsigned long long) ui64;
// half f16; bfloat16 bf16; float f32; double f64; pointers to void, char or a class (the
// context, handles, C strings, function pointers) pvoid; pointers to pointers ppvoid;
// MemRef<T, N> m{N}d{T}; results may also be void or std::tuple<...> (codes joined by `_`).
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_RAL_REGISTRY_H
#define LOUPE_RAL_REGISTRY_H

#include "loupe/ral/MemRef.h"
#include "loupe/ral/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loupe::ral {

class ExecutionContext;
class Context;

/// The type-erased form of every RAL function: `args` as described in ral_api.h.
using ApiFunction = void (*)(void **args);

namespace detail {

/// A string usable in constant expressions (C++17 has no string literal template arguments).
template <std::size_t N> struct FixedString {
  char chars[N + 1] = {};
  constexpr FixedString() = default;
  constexpr FixedString(const char (&s)[N + 1]) {
    for (std::size_t i = 0; i < N; ++i)
      chars[i] = s[i];
  }
  static constexpr std::size_t size() { return N; }
  constexpr const char *c_str() const { return chars; }
  constexpr std::string_view view() const { return {chars, N}; }
};
template <std::size_t M> FixedString(const char (&)[M]) -> FixedString<M - 1>;

template <std::size_t A, std::size_t B>
constexpr FixedString<A + B> operator+(const FixedString<A> &a, const FixedString<B> &b) {
  FixedString<A + B> r;
  for (std::size_t i = 0; i < A; ++i)
    r.chars[i] = a.chars[i];
  for (std::size_t i = 0; i < B; ++i)
    r.chars[A + i] = b.chars[i];
  return r;
}

/// Decimal digits of N.
template <int N> constexpr auto digits() {
  static_assert(N >= 0, "negative rank");
  if constexpr (N < 10) {
    FixedString<1> r;
    r.chars[0] = static_cast<char>('0' + N);
    return r;
  } else {
    return digits<N / 10>() + digits<N % 10>();
  }
}

template <typename T> inline constexpr bool kAlwaysFalse = false;

/// TypeCode<T>::value: the ABI code of a C++ type (see the file comment).
template <typename T> struct TypeCode {
  static_assert(kAlwaysFalse<T>, "not a RAL type: use bool, (u)intN_t, half, bfloat16, float, "
                                 "double, MemRef<T, N>, void* or a handle pointer");
};
#define LOUPE_RAL_DEFINE_TYPE_CODE_(Type, code)                                                     \
  template <> struct TypeCode<Type> {                                                              \
    static constexpr auto value = FixedString(code);                                               \
  }
LOUPE_RAL_DEFINE_TYPE_CODE_(void, "void");
LOUPE_RAL_DEFINE_TYPE_CODE_(bool, "i1");
LOUPE_RAL_DEFINE_TYPE_CODE_(int8_t, "i8");
LOUPE_RAL_DEFINE_TYPE_CODE_(int16_t, "i16");
LOUPE_RAL_DEFINE_TYPE_CODE_(int32_t, "i32");
LOUPE_RAL_DEFINE_TYPE_CODE_(long, "i64");
LOUPE_RAL_DEFINE_TYPE_CODE_(long long, "i64");
LOUPE_RAL_DEFINE_TYPE_CODE_(uint8_t, "ui8");
LOUPE_RAL_DEFINE_TYPE_CODE_(uint16_t, "ui16");
LOUPE_RAL_DEFINE_TYPE_CODE_(uint32_t, "ui32");
LOUPE_RAL_DEFINE_TYPE_CODE_(unsigned long, "i64"); // size_t, uint64_t on LP64
LOUPE_RAL_DEFINE_TYPE_CODE_(unsigned long long, "ui64");
LOUPE_RAL_DEFINE_TYPE_CODE_(half, "f16");
LOUPE_RAL_DEFINE_TYPE_CODE_(bfloat16, "bf16");
LOUPE_RAL_DEFINE_TYPE_CODE_(float, "f32");
LOUPE_RAL_DEFINE_TYPE_CODE_(double, "f64");
#undef LOUPE_RAL_DEFINE_TYPE_CODE_

template <typename T> constexpr auto pointerCode() {
  using Pointee = std::remove_cv_t<T>;
  if constexpr (std::is_pointer_v<Pointee>) {
    return FixedString("ppvoid");
  } else {
    static_assert(std::is_void_v<Pointee> || std::is_class_v<Pointee> ||
                      std::is_same_v<Pointee, char> || std::is_function_v<Pointee>,
                  "raw pointers to numbers are not RAL types: pass a MemRef<T, N> or a void*");
    return FixedString("pvoid");
  }
}
template <typename T> struct TypeCode<T *> {
  static constexpr auto value = pointerCode<T>();
};
template <typename T, int N> struct TypeCode<MemRef<T, N>> {
  static constexpr auto value = FixedString("m") + digits<N>() + FixedString("d") + TypeCode<T>::value;
};

template <typename T, typename... Rest> constexpr auto joinCodesNonEmpty() {
  if constexpr (sizeof...(Rest) == 0)
    return TypeCode<T>::value;
  else
    return TypeCode<T>::value + FixedString("_") + joinCodesNonEmpty<Rest...>();
}
/// The codes of Ts joined by `_` ("" for none).
template <typename... Ts> constexpr auto joinCodes() {
  if constexpr (sizeof...(Ts) == 0)
    return FixedString<0>();
  else
    return joinCodesNonEmpty<Ts...>();
}
template <typename... Ts> struct TypeCode<std::tuple<Ts...>> {
  static_assert(sizeof...(Ts) > 0, "an empty tuple result: use void");
  static constexpr auto value = joinCodes<Ts...>();
};

template <typename... Ts> struct TypeList {};

template <typename F> struct FunctionTraits;
template <typename R, typename... Args> struct FunctionTraits<R (*)(Args...)> {
  using Result = R;
  using ArgList = TypeList<Args...>;
  static constexpr std::size_t kArity = sizeof...(Args);
  static constexpr auto argCodes() { return joinCodes<Args...>(); }
};
template <typename R, typename... Args>
struct FunctionTraits<R (*)(Args...) noexcept> : FunctionTraits<R (*)(Args...)> {};

/// Argument slots a value of type T takes in `args`.
template <typename T> struct SlotCount {
  static constexpr std::size_t value = 1;
};
template <typename T, int N> struct SlotCount<MemRef<T, N>> {
  static constexpr std::size_t value = 3 + 2 * N;
};

/// offsets[i]: first slot of argument i; offsets[sizeof...(Args)]: the first result slot.
template <typename... Args> constexpr std::array<std::size_t, sizeof...(Args) + 1> slotOffsets() {
  std::array<std::size_t, sizeof...(Args) + 1> offsets{};
  constexpr std::size_t counts[] = {SlotCount<Args>::value..., 0};
  for (std::size_t i = 0; i < sizeof...(Args); ++i)
    offsets[i + 1] = offsets[i] + counts[i];
  return offsets;
}

template <typename T> struct ArgReader {
  static_assert(!std::is_reference_v<T>, "RAL functions take their arguments by value");
  static T read(void **slots) { return *static_cast<T *>(slots[0]); }
};
template <typename T, int N> struct ArgReader<MemRef<T, N>> {
  static MemRef<T, N> read(void **slots) {
    MemRef<T, N> m;
    m.allocated = *static_cast<T **>(slots[0]);
    m.aligned = *static_cast<T **>(slots[1]);
    m.offset = *static_cast<int64_t *>(slots[2]);
    if constexpr (N > 0) {
      for (int i = 0; i < N; ++i) {
        m.sizes[i] = *static_cast<int64_t *>(slots[3 + i]);
        m.strides[i] = *static_cast<int64_t *>(slots[3 + N + i]);
      }
    }
    return m;
  }
};

template <typename R> struct ResultWriter {
  static void write(void **slots, R &&value) { *static_cast<R *>(slots[0]) = std::move(value); }
};
template <typename... Ts> struct ResultWriter<std::tuple<Ts...>> {
  template <std::size_t... I>
  static void writeEach(void **slots, std::tuple<Ts...> &value, std::index_sequence<I...>) {
    ((*static_cast<Ts *>(slots[I]) = std::move(std::get<I>(value))), ...);
  }
  static void write(void **slots, std::tuple<Ts...> &&value) {
    writeEach(slots, value, std::index_sequence_for<Ts...>{});
  }
};

/// The generated wrapper: unpacks `args` per Fn's signature, calls Fn, writes its result.
template <auto Fn> struct ApiInvoker {
  using Traits = FunctionTraits<decltype(Fn)>;
  using Result = typename Traits::Result;

  template <typename... Args, std::size_t... I>
  static inline void call(void **args, TypeList<Args...>, std::index_sequence<I...>) {
    constexpr auto offsets = slotOffsets<Args...>();
    if constexpr (std::is_void_v<Result>)
      Fn(ArgReader<Args>::read(args + offsets[I])...);
    else
      ResultWriter<Result>::write(args + offsets[sizeof...(Args)],
                                  Fn(ArgReader<Args>::read(args + offsets[I])...));
  }
  static void invoke(void **args) {
    call(args, typename Traits::ArgList{}, std::make_index_sequence<Traits::kArity>{});
  }
};

template <typename F> struct FirstArgIsContext : std::false_type {};
template <typename R, typename... Rest>
struct FirstArgIsContext<R (*)(ExecutionContext *, Rest...)> : std::true_type {};
template <typename R, typename... Rest>
struct FirstArgIsContext<R (*)(ExecutionContext *, Rest...) noexcept> : std::true_type {};

/// Adds an entry to Registry::global(); used by LOUPE_RAL_API. Always returns true (a
/// duplicate is recorded as a registration error, see Registry::add).
bool registerApi(const char *fullName, const char *prefix, const char *device, ApiFunction fn,
                 const char *file, int line);

} // namespace detail

/// The full encoded name of function type F registered as `name` on `device`, at compile time:
///   apiName<decltype(&f)>(detail::FixedString("ral_gemm"), detail::FixedString("cpu")).view()
template <typename F, std::size_t A, std::size_t B>
constexpr auto apiName(const detail::FixedString<A> &name, const detail::FixedString<B> &device) {
  using Traits = detail::FunctionTraits<F>;
  return name + detail::FixedString("___") + device + detail::FixedString("___") +
         Traits::argCodes() + detail::FixedString("___") +
         detail::TypeCode<typename Traits::Result>::value;
}

/// All registered RAL functions of the process. Thread-safe: registration (static initializers,
/// also of plugins dlopen()ed later) and lookups may run concurrently.
class Registry {
public:
  struct Entry {
    std::string name;   ///< Full encoded name.
    std::string prefix; ///< "ral_gemm_onednn"
    std::string device; ///< "cpu", "gpu"
    ApiFunction fn = nullptr;
    std::string source; ///< "file.cpp:42" of the registration.
  };

  /// The process-wide registry that LOUPE_RAL_API fills and ral_api_call reads.
  static Registry &global();

  Registry();
  ~Registry();
  Registry(const Registry &) = delete;
  Registry &operator=(const Registry &) = delete;

  /// Adds `entry`. A name registered before is an error (kInvalidArgument naming both
  /// sources): the first registration stays and the error is also kept in status().
  Status add(Entry entry);
  /// The wrapper registered under `name`, or nullptr.
  ApiFunction find(std::string_view name) const;
  /// Every entry, sorted by name.
  std::vector<Entry> entries() const;
  size_t size() const;
  /// Ok, or every registration error so far (one per line).
  Status status() const;
  /// Grows on every successful add (lets per-thread lookup caches notice new entries).
  uint64_t generation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace loupe::ral

#define LOUPE_RAL_CONCAT_IMPL_(a, b) a##b
#define LOUPE_RAL_CONCAT_(a, b) LOUPE_RAL_CONCAT_IMPL_(a, b)

/// LOUPE_RAL_API("name", "device", function): registers `function` (a function or a function
/// template instance; its first argument must be ExecutionContext*) under the name derived
/// from its signature. `name` and `device` must be string literals. Use at namespace scope.
#define LOUPE_RAL_API(name, device, ...) LOUPE_RAL_API_UNIQ_(name, device, __COUNTER__, __VA_ARGS__)
#define LOUPE_RAL_API_UNIQ_(name, device, ctr, ...)                                                \
  static_assert(::loupe::ral::detail::FirstArgIsContext<decltype(&__VA_ARGS__)>::value,            \
                "the first argument of a RAL function is the ExecutionContext*");                   \
  static constexpr auto LOUPE_RAL_CONCAT_(loupeRalApiName_, ctr) =                                 \
      ::loupe::ral::apiName<decltype(&__VA_ARGS__)>(::loupe::ral::detail::FixedString(name),       \
                                                    ::loupe::ral::detail::FixedString(device));    \
  [[maybe_unused]] static const bool LOUPE_RAL_CONCAT_(loupeRalApiRegistered_, ctr) =              \
      ::loupe::ral::detail::registerApi(LOUPE_RAL_CONCAT_(loupeRalApiName_, ctr).c_str(), name,    \
                                        device, &::loupe::ral::detail::ApiInvoker<&__VA_ARGS__>::invoke, \
                                        __FILE__, __LINE__)

#endif // LOUPE_RAL_REGISTRY_H
