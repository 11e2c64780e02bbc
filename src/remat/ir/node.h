// Node: one FX node (op kind, target, args/kwargs, ordered users, meta), owned by a Graph.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/inlined_vector.h>

#include "remat/ir/argument.h"
#include "remat/ir/meta.h"
#include "remat/support/clone_ptr.h"
#include "remat/support/interned_string.h"

namespace remat {

class Graph;

/// torch.fx's six node kinds.
enum class OpKind : uint8_t { Placeholder, GetAttr, CallFunction, CallMethod, CallModule, Output };

/// `placeholder`, `get_attr`, `call_function`, `call_method`, `call_module`, `output`.
std::string_view op_kind_name(OpKind k);
std::optional<OpKind> parse_op_kind(std::string_view name);

struct Kwarg {
  InternedString key;
  Argument value;
  friend bool operator==(const Kwarg&, const Kwarg&) = default;
};

class Node;
/// A call of `operator.getitem`: one element of a multi-output op's tuple.
bool is_getitem(const Node& n);

/// A node of a Graph. Nodes are created, moved and erased only through their Graph, which owns
/// them; a `Node*` stays valid until the node is erased or the graph destroyed.
///
/// Note [use lists]: `users()` holds each node that references this one anywhere in its args or
/// kwargs, once, in the order the edges were made (torch.fx's `node.users` dict order). Only
/// set_args/set_kwargs (and the helpers built on them) change edges, so users and args always
/// agree; verify() checks it.
class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] OpKind op() const { return op_; }
  /// Canonical target: `aten.mm.default`, `operator.getitem`, a placeholder's name, `output`.
  [[nodiscard]] InternedString target() const { return target_; }
  [[nodiscard]] std::span<const Argument> args() const { return args_; }
  [[nodiscard]] std::span<const Kwarg> kwargs() const;
  /// Value of kwarg `key`, or nullptr.
  [[nodiscard]] const Argument* kwarg(std::string_view key) const;
  [[nodiscard]] std::span<Node* const> users() const { return users_; }
  [[nodiscard]] Graph* graph() const { return graph_; }
  /// Dense id, unique in its graph, given in creation order and never reused: analyses index
  /// vectors by it (sized by Graph::id_bound()). See Note [node ids] in graph.h.
  [[nodiscard]] uint32_t id() const { return id_; }
  /// The neighbours in graph order; nullptr at either end.
  [[nodiscard]] Node* next() const { return next_; }
  [[nodiscard]] Node* prev() const { return prev_; }

  /// The nodes this one reads, each once, args first then kwargs (torch.fx's all_input_nodes).
  [[nodiscard]] std::vector<Node*> input_nodes() const;
  /// input_nodes() into `out` (cleared first), reusing its capacity on hot paths.
  void collect_input_nodes(std::vector<Node*>& out) const;
  /// True when this node comes before `other` in the same graph. O(1).
  [[nodiscard]] bool is_before(const Node* other) const;

  void set_target(InternedString target) { target_ = target; }
  void set_args(std::vector<Argument> args);
  void set_arg(size_t index, Argument value);
  void set_kwargs(std::vector<Kwarg> kwargs);
  void set_kwarg(std::string_view key, Argument value);
  /// Replaces every reference to `old_input` in args and kwargs by `replacement`.
  void replace_input(Node* old_input, Node* replacement);
  /// Reorders users() to `order`, which must hold exactly the same nodes (a file's order).
  void set_users_order(const std::vector<Node*>& order);
  /// Points every user of this node at `replacement` instead; returns the users changed.
  std::vector<Node*> replace_all_uses_with(Node* replacement);

  Meta meta;

 private:
  friend class Graph;
  Node(Graph* graph, uint32_t id, OpKind op, InternedString target, std::string name)
      : graph_(graph), id_(id), op_(op), name_(std::move(name)), target_(target) {}
  ~Node() = default;
  // Note [use lists]: drop this node from its inputs' users, then re-add it after the change.
  void unlink_inputs();
  void link_inputs();
  template <class F>
  void for_each_input_occurrence(F&& fn) const;  // every node reference, repeats included

  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  Graph* graph_;
  uint32_t id_;
  uint64_t position_ : 56 = 0;  // gapped order index, Note [order index] in graph.cpp
  OpKind op_ : 8;
  std::string name_;
  InternedString target_;
  std::vector<Argument> args_;
  ClonePtr<std::vector<Kwarg>> kwargs_;  // most nodes have none: allocated on first use
  // Most values have one or two users: kept inline, in the 24 bytes a std::vector takes.
  absl::InlinedVector<Node*, 2> users_;
};

}  // namespace remat
