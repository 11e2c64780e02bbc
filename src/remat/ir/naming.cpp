#include "remat/ir/naming.h"

#include "remat/fxtext/python_lexer.h"
#include "remat/fxtext/text_scan.h"
#include "remat/ir/target.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace remat {
namespace {

// Python 3.11's dir(builtins) and torch.fx's _custom_builtins, sorted; with the keywords
// (fxtext::is_python_keyword) the names torch.fx will not give a node.
constexpr std::array<std::string_view, 161> kBuiltins{"ArithmeticError",
                                                      "AssertionError",
                                                      "AttributeError",
                                                      "BaseException",
                                                      "BaseExceptionGroup",
                                                      "BlockingIOError",
                                                      "BrokenPipeError",
                                                      "BufferError",
                                                      "BytesWarning",
                                                      "ChildProcessError",
                                                      "ConnectionAbortedError",
                                                      "ConnectionError",
                                                      "ConnectionRefusedError",
                                                      "ConnectionResetError",
                                                      "DeprecationWarning",
                                                      "EOFError",
                                                      "Ellipsis",
                                                      "EncodingWarning",
                                                      "EnvironmentError",
                                                      "Exception",
                                                      "ExceptionGroup",
                                                      "FileExistsError",
                                                      "FileNotFoundError",
                                                      "FloatingPointError",
                                                      "FutureWarning",
                                                      "GeneratorExit",
                                                      "IOError",
                                                      "ImportError",
                                                      "ImportWarning",
                                                      "IndentationError",
                                                      "IndexError",
                                                      "InterruptedError",
                                                      "IsADirectoryError",
                                                      "KeyError",
                                                      "KeyboardInterrupt",
                                                      "LookupError",
                                                      "MemoryError",
                                                      "ModuleNotFoundError",
                                                      "NameError",
                                                      "NoneType",
                                                      "NotADirectoryError",
                                                      "NotImplemented",
                                                      "NotImplementedError",
                                                      "OSError",
                                                      "OverflowError",
                                                      "PendingDeprecationWarning",
                                                      "PermissionError",
                                                      "ProcessLookupError",
                                                      "RecursionError",
                                                      "ReferenceError",
                                                      "ResourceWarning",
                                                      "RuntimeError",
                                                      "RuntimeWarning",
                                                      "StopAsyncIteration",
                                                      "StopIteration",
                                                      "SyntaxError",
                                                      "SyntaxWarning",
                                                      "SystemError",
                                                      "SystemExit",
                                                      "TabError",
                                                      "TimeoutError",
                                                      "TypeError",
                                                      "UnboundLocalError",
                                                      "UnicodeDecodeError",
                                                      "UnicodeEncodeError",
                                                      "UnicodeError",
                                                      "UnicodeTranslateError",
                                                      "UnicodeWarning",
                                                      "UserWarning",
                                                      "ValueError",
                                                      "Warning",
                                                      "ZeroDivisionError",
                                                      "__build_class__",
                                                      "__debug__",
                                                      "__doc__",
                                                      "__import__",
                                                      "__loader__",
                                                      "__name__",
                                                      "__package__",
                                                      "__spec__",
                                                      "abs",
                                                      "aiter",
                                                      "all",
                                                      "anext",
                                                      "any",
                                                      "ascii",
                                                      "bin",
                                                      "bool",
                                                      "breakpoint",
                                                      "bytearray",
                                                      "bytes",
                                                      "callable",
                                                      "chr",
                                                      "classmethod",
                                                      "compile",
                                                      "complex",
                                                      "copyright",
                                                      "credits",
                                                      "delattr",
                                                      "device",
                                                      "dict",
                                                      "dir",
                                                      "divmod",
                                                      "enumerate",
                                                      "eval",
                                                      "exec",
                                                      "exit",
                                                      "filter",
                                                      "float",
                                                      "format",
                                                      "frozenset",
                                                      "fx_pytree",
                                                      "getattr",
                                                      "globals",
                                                      "hasattr",
                                                      "hash",
                                                      "help",
                                                      "hex",
                                                      "id",
                                                      "inf",
                                                      "input",
                                                      "int",
                                                      "isinstance",
                                                      "issubclass",
                                                      "iter",
                                                      "len",
                                                      "license",
                                                      "list",
                                                      "locals",
                                                      "map",
                                                      "max",
                                                      "memoryview",
                                                      "min",
                                                      "nan",
                                                      "next",
                                                      "object",
                                                      "oct",
                                                      "open",
                                                      "ord",
                                                      "pow",
                                                      "print",
                                                      "property",
                                                      "pytree",
                                                      "quit",
                                                      "range",
                                                      "repr",
                                                      "reversed",
                                                      "round",
                                                      "set",
                                                      "setattr",
                                                      "slice",
                                                      "sorted",
                                                      "staticmethod",
                                                      "str",
                                                      "sum",
                                                      "super",
                                                      "torch",
                                                      "tuple",
                                                      "type",
                                                      "vars",
                                                      "zip"};

constexpr auto is_ident_start = fxtext::is_identifier_start;
constexpr auto is_ident_char = fxtext::is_identifier_char;
using fxtext::is_digit;

/// The value of at most 18 decimal digits.
long long parse_digits(std::string_view digits) {
  long long n = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return n;
}

std::string sanitize(std::string_view candidate) {
  std::string out;
  bool in_run = false;
  for (char c : candidate) {
    if (is_ident_char(c)) {
      out += c;
      in_run = false;
    } else if (!in_run) {
      out += '_';
      in_run = true;
    }
  }
  if (out.empty()) out = "_unnamed";
  if (is_digit(out[0])) out.insert(out.begin(), '_');
  return out;
}

}  // namespace

bool is_reserved_python_name(std::string_view name) {
  // No reserved name has a digit; most node names do (`add_12`).
  if (std::any_of(name.begin(), name.end(), is_digit)) return false;
  return fxtext::is_python_keyword(name) ||
         std::binary_search(kBuiltins.begin(), kBuiltins.end(), name);
}

std::string name_candidate_for_target(std::string_view target, bool callable) {
  // make_fx names ATen nodes after the op (`add`, not `add_tensor`); a Python callable after
  // its __name__.
  std::string_view op = callable ? callable_short_name(target) : target;
  if (op.size() > 4 && op.starts_with("__") && op.ends_with("__")) op = op.substr(2, op.size() - 4);
  std::string out;
  bool prev_lower = false;
  for (char c : op) {
    auto u = static_cast<unsigned char>(c);
    if (prev_lower && std::isupper(u)) out += '_';
    out += static_cast<char>(std::tolower(u));
    prev_lower = std::islower(u) != 0;
  }
  return out;
}

std::string NameCounter::create(std::string_view requested,
                                absl::FunctionRef<bool(std::string_view)> taken,
                                bool is_that_builtin) {
  std::string candidate(requested);
  std::optional<FxName> split = split_fx_name(candidate);
  if (!split) {
    candidate = sanitize(candidate);
    split = split_fx_name(candidate);
  }
  std::string_view base_view = split->base, digits = split->digits;
  // The base is a prefix of the candidate until the candidate is renamed: no copy on the way
  // every node's name takes (printing a million-node graph names a million nodes).
  const size_t base_size = base_view.size();
  std::string base;
  auto rename = [&](long long n) {
    if (base.empty()) base = candidate.substr(0, base_size);
    candidate = base + "_" + std::to_string(n);
  };
  long long num = 0;
  if (digits.empty() || taken(candidate)) {
    auto it = base_count_.find(std::string_view(candidate));
    num = it == base_count_.end() ? 0 : it->second;
    if (is_reserved_python_name(candidate) && !is_that_builtin) rename(++num);
  } else {
    num = split->number();
  }
  while (taken(candidate)) rename(++num);
  std::string_view key = base.empty() ? std::string_view(candidate).substr(0, base_size) : base;
  if (auto it = base_count_.find(key); it != base_count_.end())
    it->second = num;
  else
    base_count_.emplace(key, num);
  return candidate;
}

std::optional<FxName> split_fx_name(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return std::nullopt;
  if (!std::all_of(s.begin(), s.end(), is_ident_char)) return std::nullopt;
  // The lazy base takes the first split point where the rest is `_<digits>`.
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] != '_') continue;
    std::string_view rest = s.substr(i + 1);
    if (!rest.empty() && std::all_of(rest.begin(), rest.end(), is_digit))
      return FxName{s.substr(0, i), rest};
  }
  return FxName{s, {}};
}

long long FxName::number() const {
  return digits.empty() || digits.size() > 18 ? 0 : parse_digits(digits);
}

void NameCounter::note(std::string_view name) {
  // Replay create_name's bookkeeping for a name torch.fx would itself have produced.
  std::optional<FxName> split = split_fx_name(name);
  if (!split || is_reserved_python_name(name)) return;
  if (split->digits.empty()) {
    base_count_.try_emplace(split->base, 0);
  } else if (split->digits.size() <= 18) {
    base_count_[split->base] = split->number();
  }
}

std::string Namespace::create_name(std::string_view candidate, bool is_that_builtin) {
  std::string name = counter_.create(
      candidate, [this](std::string_view n) { return contains(n); }, is_that_builtin);
  used_.insert(name);
  return name;
}

bool Namespace::reserve(std::string_view name) {
  if (!used_.insert(std::string(name)).second) return false;
  counter_.note(name);
  return true;
}

}  // namespace remat
