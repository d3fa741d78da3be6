//===- Token.h - Syntax tokens of one line of MLIR, LLVM IR or assembly -*- C++ -*-===//
//
// A line tokenizer for syntax colouring. Every language used here is line oriented (no
// multi-line strings or block comments), so a line is tokenized on its own, with no state
// carried between lines: the IR panel tokenizes only the lines it draws.
//
//===----------------------------------------------------------------------===//
#ifndef LOUPE_VISUALIZER_TEXT_TOKEN_H
#define LOUPE_VISUALIZER_TEXT_TOKEN_H

#include <cstdint>
#include <string_view>
#include <vector>

namespace loupe::visualizer::text {

/// The text formats the IR panel shows.
enum class Language : uint8_t {
  Mlir,      ///< MLIR generic or custom assembly (`.mlir`).
  LlvmIr,    ///< LLVM IR (`.ll`).
  Assembly,  ///< Machine assembly, AT&T or Intel (`.s`).
  PlainText, ///< No colouring: the whole line is one Identifier token.
};

/// Language from the file extension (`.mlir`, `.ll`, `.s`/`.S`/`.asm`); for any other
/// extension, a guess from the first 4 KiB of `text` (`define `/`declare ` -> LLVM IR,
/// `func.func`/`module {`/`%x = dialect.op` -> MLIR, `.text`/tab-indented mnemonics -> assembly).
Language detectLanguage(std::string_view path, std::string_view text);

enum class TokenKind : uint8_t {
  Identifier,   ///< A bare word with no other class: attribute names, `d0`, affine dims.
  Keyword,      ///< `module`, `func.func`, `return`, `ins`, `outs`, `attributes`, `loc`, `define`,
                ///< assembler directives (`.text`).
  OpName,       ///< `tosa.conv2d`, `"tosa.const"` (generic form), LLVM instructions, asm mnemonics.
  SsaValue,     ///< `%foo`, `%123`, `%arg0#1` (MLIR/LLVM local values).
  BlockLabel,   ///< `^bb0`; LLVM `entry:`/`19:` and asm `.LBB0_1:` at the start of a line.
  Symbol,       ///< `@main`, `@"quoted"`; asm local symbols (`.LCPI0_0`) in operands.
  Alias,        ///< Attribute/type aliases and dialect types: `#map`, `#loc3`, `!ral.context`;
                ///< LLVM `#0` attribute groups and `!12` metadata.
  Type,         ///< Builtin types with their shape: `tensor<1x3xf32>`, `memref<...>`, `f32`,
                ///< `i64`, `index`, `vector<...>`; LLVM `i32`, `ptr`, `float`, `void`.
  Number,       ///< `42`, `-1.5e+3`, `0x7F800000`; asm immediates `$8`.
  String,       ///< `"..."` with its quotes; LLVM `c"..."`.
  Comment,      ///< `// ...` (MLIR), `; ...` (LLVM), `# ...` (asm), to the end of the line.
  Punctuation,  ///< `( ) { } [ ] < > , : = -> ...`
  Register,     ///< Assembly registers: `%rax`, `xmm0`.
};
inline constexpr int kTokenKindCount = 13;

/// A printable name of a kind ("ssa-value", "op-name", ...), for tests and debug output.
const char *tokenKindName(TokenKind kind);

/// One token: the bytes [begin, end) of its line.
struct Token {
  uint32_t begin = 0;
  uint32_t end = 0;
  TokenKind kind = TokenKind::Identifier;
  bool operator==(const Token &o) const {
    return begin == o.begin && end == o.end && kind == o.kind;
  }
};

/// Appends the tokens of `line` (no newline in it) to `out`: sorted by `begin`, non-overlapping,
/// covering every byte except spaces and tabs. O(line length). Lines longer than 4 GiB are
/// not supported (offsets are 32-bit).
void tokenizeLine(Language language, std::string_view line, std::vector<Token> &out);

/// Convenience: tokenizeLine into a fresh vector.
std::vector<Token> tokenizeLine(Language language, std::string_view line);

} // namespace loupe::visualizer::text

#endif // LOUPE_VISUALIZER_TEXT_TOKEN_H
