// OpSchema: an ATen function schema (`aten::mm(Tensor self, Tensor mat2) -> Tensor`), parsed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/support/expected.h"

namespace remat {

/// The base type of a schema argument or return, without `?`, `[]` and alias annotations.
enum class SchemaBaseType : uint8_t {
  Tensor,
  Int,
  SymInt,
  Float,
  Bool,
  Str,
  Scalar,
  ScalarType,
  Layout,
  Device,
  MemoryFormat,
  Generator,
  Other,
};

/// One argument or return of a schema. The type's text is kept verbatim so that printing a parsed
/// schema gives back the declaration byte for byte.
struct SchemaArg {
  std::string type_text;                    ///< e.g. `Tensor(a -> *)`, `int[1]?`, `SymInt[]`
  std::string name;                         ///< empty for unnamed returns
  std::optional<std::string> default_text;  ///< e.g. `None`, `1`, `[]`, `"none"`
  bool kwarg_only = false;

  SchemaBaseType base = SchemaBaseType::Other;
  bool is_optional = false;       ///< `T?`
  bool is_list = false;           ///< `T[]` or `T[N]`
  std::optional<int> fixed_size;  ///< N of `T[N]`
  std::string alias_set;          ///< `a` of `Tensor(a)`; empty when none
  bool is_write = false;          ///< `Tensor(a!)`

  [[nodiscard]] bool is_tensor() const { return base == SchemaBaseType::Tensor && !is_list; }
  [[nodiscard]] bool is_tensor_list() const { return base == SchemaBaseType::Tensor && is_list; }
};

struct OpSchema {
  std::string ns;        ///< `aten`
  std::string name;      ///< `mm`
  std::string overload;  ///< empty for the default overload
  std::vector<SchemaArg> arguments;
  std::vector<SchemaArg> returns;
  bool returns_tuple = false;  ///< returns were written in parentheses

  /// The FX target string: `aten.mm.default`, `aten.add.Tensor`.
  [[nodiscard]] std::string target() const;
  /// The declaration as c10 prints it; equals the text the schema was parsed from.
  [[nodiscard]] std::string to_string() const;
  /// Index of the argument called `name`, or -1.
  [[nodiscard]] int find_argument(std::string_view arg_name) const;
  /// True when some output aliases an input (a view op).
  [[nodiscard]] bool returns_alias() const;
};

/// Parses an ATen schema declaration; errors give the column of the problem.
Expected<OpSchema> parse_schema(std::string_view text);

}  // namespace remat
