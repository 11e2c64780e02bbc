#include "remat/ir/graph.h"

#include <algorithm>

#include "remat/support/assert.h"

namespace remat {

// Note [order index]: every node carries a position; positions increase along the list with
// gaps of 2^24, so an insertion takes the midpoint of its neighbours. When a gap is used up the
// graph is renumbered lazily, on the next order query. Appends never exhaust a gap.
namespace {
constexpr uint64_t kGap = uint64_t{1} << 24;  // positions are 56-bit: 2^32 nodes, 24 halvings
}

Graph::Graph() = default;

Graph::~Graph() {
  Node* n = first_;
  while (n != nullptr) {
    Node* next = n->next_;
    n->~Node();  // the arena frees the memory
    n = next;
  }
}

Node* Graph::find(std::string_view name) const {
  index_deferred_names();
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : *it;
}

std::vector<Node*> Graph::placeholders() const {
  std::vector<Node*> out;
  out.reserve(num_placeholders_);
  // Placeholders usually come first: stop once all of them are found.
  for (Node* n = first_; n != nullptr && out.size() < num_placeholders_; n = n->next_)
    if (n->op() == OpKind::Placeholder) out.push_back(n);
  return out;
}

Node* Graph::output_node() const {
  for (Node* n = last_; n != nullptr; n = n->prev_)
    if (n->op() == OpKind::Output) return n;
  return nullptr;
}

Node* Graph::create_node(OpKind op, std::string_view target, std::vector<Argument> args,
                         std::vector<Kwarg> kwargs, std::string_view name) {
  std::string candidate;
  if (!name.empty()) {
    candidate = name;
  } else if (op == OpKind::Placeholder) {
    candidate = target;
  } else {
    candidate = name_candidate_for_target(target, op == OpKind::CallFunction);
  }
  Node* n = new_node(op, InternedString(target), allocate_name(candidate));
  return link_new(n, std::move(args), std::move(kwargs));
}

Node* Graph::create_node_exact(OpKind op, InternedString target, std::string_view name,
                               std::vector<Argument> args, std::vector<Kwarg> kwargs) {
  Node* n = new_named_node(op, target, name);
  return n ? link_args(n, std::move(args), std::move(kwargs)) : nullptr;
}

Node* Graph::new_named_node(OpKind op, InternedString target, std::string_view name) {
  index_deferred_names();
  // One probe of the name index: it fails when the name is taken (copies of a graph, the
  // common case, have no retired names to look through).
  if (!retired_names_.empty() && retired_names_.contains(name)) return nullptr;
  Node* n = new_node(op, target, std::string(name));
  if (!by_name_.insert(n).second) {
    if (op == OpKind::Placeholder) --num_placeholders_;
    n->~Node();
    arena_.release(n);
    return nullptr;
  }
  name_counter_.note(name);
  link_before(n, insert_before_);
  return n;
}

Node* Graph::copy_node(const Node& src, absl::FunctionRef<Node*(Node*)> remap) {
  Node* n = new_named_node(src.op(), src.target(), src.name());
  return n == nullptr ? nullptr : copy_into(n, src, remap);
}

Node* Graph::append_copy(const Node& src, absl::FunctionRef<Node*(Node*)> remap) {
  return copy_into(append_deferred(src.op(), src.target(), src.name()), src, remap);
}

Node* Graph::append_output(Argument value) {
  // For a free name without a digit suffix, create_name's bookkeeping is exactly note()'s.
  Node* n = append_deferred(OpKind::Output, InternedString("output"), "output");
  std::vector<Argument> args;
  args.push_back(std::move(value));
  return link_args(n, std::move(args), {});
}

Node* Graph::append_deferred(OpKind op, InternedString target, std::string name) {
  REMAT_ASSERT(insert_before_ == nullptr) << "appending with an insert point";
  Node* n = new_node(op, target, std::move(name));
  deferred_names_.emplace_back(n->id(), n);
  link_before(n, nullptr);
  return n;
}

// Note [deferred names]: copying a graph node by node spent a fifth of its time putting each
// name into the index and the suffix counter, which a copy about to be partitioned rarely asks
// about. append_copy defers both; the first operation that reads or changes names (find,
// creating or renaming a node, erasing one) catches up, in creation order, so the counter ends
// in the state eager copies would have left it in. Catching up happens inside const calls
// (find): while names are deferred, one graph must not be read from two threads at once.
void Graph::index_deferred_names_now() const {
  // An erased node's name was noted when it was made, eagerly: its note keeps its turn.
  std::sort(erased_deferred_.begin(), erased_deferred_.end());
  auto erased = erased_deferred_.begin();
  for (auto [id, n] : deferred_names_) {
    if (erased != erased_deferred_.end() && erased->first == id) {
      name_counter_.note((erased++)->second);
      continue;
    }
    REMAT_ASSERT(by_name_.insert(n).second) << "append_copy of a taken name: " << n->name();
    name_counter_.note(n->name());
  }
  deferred_names_.clear();
  erased_deferred_.clear();
}

Node* Graph::copy_into(Node* n, const Node& src, absl::FunctionRef<Node*(Node*)> remap) {
  n->args_.assign(src.args_.begin(), src.args_.end());
  for (Argument& a : n->args_) map_nodes(a, remap);
  if (src.kwargs_) {
    std::vector<Kwarg>& kwargs = n->kwargs_.ensure() = *src.kwargs_;
    for (Kwarg& k : kwargs) map_nodes(k.value, remap);
  }
  n->link_inputs();
  n->meta = src.meta;
  return n;
}

Node* Graph::new_node(OpKind op, InternedString target, std::string name) {
  REMAT_ASSERT(next_id_ != UINT32_MAX) << "node ids exhausted";
  if (op == OpKind::Placeholder) ++num_placeholders_;
  return new (arena_.allocate()) Node(this, next_id_++, op, target, std::move(name));
}

Node* Graph::link_new(Node* n, std::vector<Argument> args, std::vector<Kwarg> kwargs) {
  index_deferred_names();
  link_before(n, insert_before_);
  by_name_.insert(n);
  return link_args(n, std::move(args), std::move(kwargs));
}

Node* Graph::link_args(Node* n, std::vector<Argument> args, std::vector<Kwarg> kwargs) {
  n->args_ = std::move(args);
  if (!kwargs.empty()) n->kwargs_.ensure() = std::move(kwargs);
  n->link_inputs();
  return n;
}

Node* Graph::placeholder(std::string_view name) {
  return create_node(OpKind::Placeholder, name, {}, {}, name);
}

Node* Graph::call_function(std::string_view target, std::vector<Argument> args,
                           std::vector<Kwarg> kwargs, std::string_view name) {
  return create_node(OpKind::CallFunction, target, std::move(args), std::move(kwargs), name);
}

Node* Graph::output(Argument value) {
  std::vector<Argument> args;
  args.push_back(std::move(value));
  return create_node(OpKind::Output, "output", std::move(args), {}, "output");
}

void Graph::link_before(Node* n, Node* position) {
  REMAT_ASSERT(position == nullptr || position->graph_ == this) << "insert point in another graph";
  Node* prev = position ? position->prev_ : last_;
  n->prev_ = prev;
  n->next_ = position;
  if (prev)
    prev->next_ = n;
  else
    first_ = n;
  if (position)
    position->prev_ = n;
  else
    last_ = n;
  ++size_;
  if (order_dirty_) return;
  uint64_t lo = prev ? prev->position_ : 0;
  if (position == nullptr) {
    REMAT_ASSERT(lo + kGap < (uint64_t{1} << 56)) << "order index exhausted";
    n->position_ = lo + kGap;
  } else if (position->position_ - lo > 1) {
    n->position_ = lo + (position->position_ - lo) / 2;
  } else {
    order_dirty_ = true;
  }
}

void Graph::unlink(Node* n) {
  if (n->prev_)
    n->prev_->next_ = n->next_;
  else
    first_ = n->next_;
  if (n->next_)
    n->next_->prev_ = n->prev_;
  else
    last_ = n->prev_;
  n->prev_ = n->next_ = nullptr;
  --size_;
}

void Graph::renumber() const {
  uint64_t pos = 0;
  for (Node* n = first_; n != nullptr; n = n->next_) n->position_ = (pos += kGap);
  order_dirty_ = false;
}

uint64_t Graph::position_of(const Node* n) const {
  if (order_dirty_) renumber();
  return n->position_;
}

void Graph::move_before(Node* n, Node* position) {
  REMAT_ASSERT(n->graph_ == this) << n->name() << " is not in this graph";
  if (n == position) return;
  if (insert_before_ == n) insert_before_ = n->next_;
  unlink(n);
  link_before(n, position);
}

void Graph::move_after(Node* n, Node* position) {
  REMAT_ASSERT(position != nullptr && position->graph_ == this) << "move_after needs a node";
  if (n == position) return;
  move_before(n, position->next_ == n ? n->next_ : position->next_);
}

void Graph::erase(Node* n) {
  REMAT_ASSERT(n->graph_ == this) << n->name() << " is not in this graph";
  REMAT_ASSERT(n->users_.empty()) << "erasing " << n->name() << " which still has "
                                  << n->users_.size() << " user(s), the first "
                                  << n->users_.front()->name();
  n->unlink_inputs();
  if (insert_before_ == n) insert_before_ = n->next_;
  unlink(n);
  if (!deferred_names_.empty() && n->id() >= deferred_names_.front().first)
    erased_deferred_.emplace_back(n->id(), n->name_);  // deferred: not in the index yet
  else
    by_name_.erase(n);
  retired_names_.insert(n->name_);
  if (n->op() == OpKind::Placeholder) --num_placeholders_;
  n->~Node();
  arena_.release(n);
}

std::string Graph::allocate_name(std::string_view candidate) {
  index_deferred_names();
  return name_counter_.create(candidate, [this](std::string_view n) { return name_taken(n); });
}

std::string Graph::create_name(std::string_view candidate) {
  std::string name = allocate_name(candidate);
  retired_names_.insert(name);
  return name;
}

const std::string& Graph::rename(Node* n, std::string_view candidate) {
  index_deferred_names();
  std::string unique = allocate_name(candidate);
  by_name_.erase(n);
  retired_names_.insert(n->name_);
  n->name_ = std::move(unique);
  by_name_.insert(n);
  return n->name_;
}

bool Graph::rename_exact(Node* n, std::string_view name) {
  index_deferred_names();
  if (name == n->name_) return true;
  if (name_taken(name)) return false;
  name_counter_.note(name);
  by_name_.erase(n);
  retired_names_.insert(n->name_);
  n->name_ = std::string(name);
  by_name_.insert(n);
  return true;
}

void clone_graph(const Graph& src, Graph& dst) {
  REMAT_ASSERT(dst.empty()) << "clone_graph into a non-empty graph";
  dst.reserve(src.size());
  std::vector<Node*> copies(src.id_bound(), nullptr);  // by the source node's id
  auto remap = [&](Node* n) {
    Node* copy = copies[n->id()];
    REMAT_ASSERT(copy != nullptr) << n->name() << " used before its definition";
    return copy;
  };
  for (const Node* n : src.nodes()) copies[n->id()] = dst.append_copy(*n, remap);
}

}  // namespace remat
