// Graph: an ordered list of nodes with FX naming, O(1) edits and O(1) order queries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/functional/function_ref.h>

#include "remat/ir/naming.h"
#include "remat/ir/node.h"
#include "remat/support/slot_arena.h"
#include "remat/support/string_hash.h"

namespace remat {

/// An FX graph. Owns its nodes (an intrusive doubly linked list in topological order), keeps a
/// name index and torch.fx's namespace, and answers `a before b` in O(1).
///
/// Note [node ids]: each node gets the next dense id when it is created (0, 1, 2, ... in creation
/// order; ids of erased nodes are not reused), so an analysis keeps per-node data in a vector of
/// `id_bound()` entries instead of a hash map keyed by pointers. Nodes live in a SlotArena:
/// nodes created one after another sit next to each other in memory.
///
/// Not copyable or movable: nodes point back at their graph. Use `clone_graph` to copy.
class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // --- iteration ---
  template <class NodePtr>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Node*;
    using difference_type = std::ptrdiff_t;
    using pointer = NodePtr*;
    using reference = NodePtr;
    Iterator() = default;
    explicit Iterator(NodePtr n) : n_(n) {}
    NodePtr operator*() const { return n_; }
    Iterator& operator++() {
      n_ = n_->next();
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      n_ = n_->next();
      return old;
    }
    friend bool operator==(Iterator a, Iterator b) { return a.n_ == b.n_; }

   private:
    NodePtr n_ = nullptr;
  };
  template <class NodePtr>
  struct Range {
    NodePtr first;
    [[nodiscard]] Iterator<NodePtr> begin() const { return Iterator<NodePtr>(first); }
    [[nodiscard]] Iterator<NodePtr> end() const { return Iterator<NodePtr>(nullptr); }
  };
  /// All nodes in graph order. Erasing the current node while iterating is not allowed; collect
  /// first (or walk with next()) when you edit.
  [[nodiscard]] Range<Node*> nodes() { return {first_}; }
  [[nodiscard]] Range<const Node*> nodes() const { return {first_}; }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  /// One more than the largest node id handed out: the size of an id-indexed vector.
  [[nodiscard]] uint32_t id_bound() const { return next_id_; }
  [[nodiscard]] Node* first() const { return first_; }
  [[nodiscard]] Node* last() const { return last_; }
  /// The node called `name`, or nullptr.
  [[nodiscard]] Node* find(std::string_view name) const;
  /// Placeholder nodes in order.
  [[nodiscard]] std::vector<Node*> placeholders() const;
  /// The last `output` node, or nullptr.
  [[nodiscard]] Node* output_node() const;

  // --- creation ---
  /// Creates a node at the insertion point (the end unless set_insert_point moved it). The name
  /// follows torch.fx: `name` is a candidate made unique (`add` -> `add_1`, `sum` -> `sum_1`);
  /// when empty, the candidate comes from the op and target.
  Node* create_node(OpKind op, std::string_view target, std::vector<Argument> args = {},
                    std::vector<Kwarg> kwargs = {}, std::string_view name = {});
  /// Creates a node named exactly `name` (reading an existing graph); nullptr if it is taken.
  Node* create_node_exact(OpKind op, InternedString target, std::string_view name,
                          std::vector<Argument> args = {}, std::vector<Kwarg> kwargs = {});
  /// Creates a copy of `src` (usually of another graph): its op, target, exact name, meta, and
  /// its args and kwargs with each node reference `r` replaced by `remap(r)`. nullptr if the
  /// name is taken. The cheap way to build a graph from parts of another.
  Node* copy_node(const Node& src, absl::FunctionRef<Node*(Node*)> remap);
  /// copy_node at the end of the graph for a caller that knows `src`'s name is free here (the
  /// nodes of one graph copied into an empty one): the name index takes it in only when next
  /// asked (Note [deferred names]).
  Node* append_copy(const Node& src, absl::FunctionRef<Node*(Node*)> remap);
  /// output(value) for such a copy: the caller knows no node is named `output`.
  Node* append_output(Argument value);
  /// Prepares the name index and the node storage for `n` more nodes.
  void reserve(size_t n) {
    by_name_.reserve(by_name_.size() + deferred_names_.size() + n);
    arena_.reserve(n);
  }
  Node* placeholder(std::string_view name);
  Node* call_function(std::string_view target, std::vector<Argument> args,
                      std::vector<Kwarg> kwargs = {}, std::string_view name = {});
  /// The output node: one argument, the returned value (usually a tuple or list).
  Node* output(Argument value);

  /// New nodes go right before `before` (or at the end when it is nullptr), in creation order.
  void set_insert_point(Node* before) { insert_before_ = before; }
  /// New nodes go right after `after`, in creation order (torch.fx's `inserting_after`).
  void set_insert_point_after(Node* after) { insert_before_ = after->next(); }
  [[nodiscard]] Node* insert_point() const { return insert_before_; }

  // --- editing ---
  /// Moves `n` to just before `position` (or to the end when nullptr).
  void move_before(Node* n, Node* position);
  void move_after(Node* n, Node* position);
  /// Removes `n`. It must have no users (erasing a used node is a programming error).
  void erase(Node* n);
  /// Renames `n` to exactly `name` (reading text that shows the name); false if it is taken.
  bool rename_exact(Node* n, std::string_view name);
  /// Gives `n` a new unique name derived from `candidate`; returns it.
  const std::string& rename(Node* n, std::string_view candidate);
  /// A fresh unique name derived from `candidate`, by torch.fx's rules, reserved from now on
  /// (for values outside the graph that must not clash with node names).
  std::string create_name(std::string_view candidate);
  /// True when `name` belongs to a node of this graph or did once (torch.fx never frees names).
  [[nodiscard]] bool name_taken(std::string_view name) const {
    index_deferred_names();
    return by_name_.contains(name) || retired_names_.contains(name);
  }

  // --- order ---
  /// The gapped order index of `n`; smaller means earlier. See Note [order index].
  [[nodiscard]] uint64_t position_of(const Node* n) const;

 private:
  std::string allocate_name(std::string_view candidate);  // unreserved: a node takes it at once
  Node* new_node(OpKind op, InternedString target, std::string name);
  Node* new_named_node(OpKind op, InternedString target, std::string_view name);  // null if taken
  Node* link_new(Node* n, std::vector<Argument> args, std::vector<Kwarg> kwargs);
  Node* link_args(Node* n, std::vector<Argument> args, std::vector<Kwarg> kwargs);
  void link_before(Node* n, Node* position);
  void unlink(Node* n);
  void renumber() const;
  Node* copy_into(Node* n, const Node& src, absl::FunctionRef<Node*(Node*)> remap);
  Node* append_deferred(OpKind op, InternedString target, std::string name);
  /// Takes the names of append_copy's nodes into the index and the counter, in creation order.
  void index_deferred_names() const {
    if (!deferred_names_.empty()) index_deferred_names_now();
  }
  void index_deferred_names_now() const;

  SlotArena<Node> arena_;
  uint32_t next_id_ = 0;
  size_t num_placeholders_ = 0;
  Node* first_ = nullptr;
  Node* last_ = nullptr;
  Node* insert_before_ = nullptr;
  size_t size_ = 0;
  mutable bool order_dirty_ = false;
  // The name index holds node pointers only (8 bytes a slot), hashed by the node's name, so a
  // lookup by std::string_view needs no separate key storage.
  struct NodeNameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const noexcept { return StringViewHash()(name); }
    size_t operator()(const Node* n) const noexcept { return StringViewHash()(n->name()); }
  };
  struct NodeNameEq {
    using is_transparent = void;
    static std::string_view key(std::string_view s) { return s; }
    static std::string_view key(const Node* n) { return n->name(); }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      return key(a) == key(b);
    }
  };
  mutable absl::flat_hash_set<Node*, NodeNameHash, NodeNameEq> by_name_;
  absl::flat_hash_set<std::string, StringViewHash, StringViewEq>
      retired_names_;  // of erased and renamed nodes
  mutable NameCounter name_counter_;
  // Note [deferred names]: append_copy's nodes, by id, not yet in by_name_ nor noted by the
  // counter; the names of those erased since, by id (ids are never reused).
  mutable std::vector<std::pair<uint32_t, Node*>> deferred_names_;
  mutable std::vector<std::pair<uint32_t, std::string>> erased_deferred_;
};

/// A deep copy of `src` into the empty graph `dst`.
void clone_graph(const Graph& src, Graph& dst);

}  // namespace remat
