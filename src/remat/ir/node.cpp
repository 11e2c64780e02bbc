#include "remat/ir/node.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>

#include "remat/ir/graph.h"
#include "remat/support/assert.h"
#include "remat/support/enum_names.h"

namespace remat {
namespace {

constexpr EnumNames<OpKind, 6> kOpKinds({"placeholder", "get_attr", "call_function", "call_method",
                                         "call_module", "output"});

}  // namespace

std::string_view op_kind_name(OpKind k) {
  return kOpKinds.name(k);
}

bool is_getitem(const Node& n) {
  return n.target().view() == "operator.getitem";
}

std::optional<OpKind> parse_op_kind(std::string_view name) {
  return kOpKinds.parse(name);
}

std::span<const Kwarg> Node::kwargs() const {
  if (!kwargs_) return {};
  return *kwargs_;
}

const Argument* Node::kwarg(std::string_view key) const {
  for (const Kwarg& k : kwargs())
    if (k.key.view() == key) return &k.value;
  return nullptr;
}

std::vector<Node*> Node::input_nodes() const {
  std::vector<Node*> inputs;
  collect_input_nodes(inputs);
  return inputs;
}

bool Node::is_before(const Node* other) const {
  REMAT_ASSERT(other->graph_ == graph_)
      << name_ << " and " << other->name_ << " are in different graphs";
  return graph_->position_of(this) < graph_->position_of(other);
}

template <class F>
void Node::for_each_input_occurrence(F&& fn) const {
  for (const Argument& a : args_) {
    if (a.is_node())
      fn(a.as_node());  // the common case, without a call through a function reference
    else if (a.may_hold_node())
      for_each_node(a, fn);
  }
  for (const Kwarg& k : kwargs())
    if (k.value.may_hold_node()) for_each_node(k.value, fn);
}

void Node::collect_input_nodes(std::vector<Node*>& out) const {
  out.clear();
  // Linear de-duplication is fastest for the usual handful of inputs; output nodes of large
  // graphs read thousands of values, where it turned quadratic (bench_partition showed it).
  constexpr size_t kLinearLimit = 32;
  absl::flat_hash_set<Node*> seen;
  for_each_input_occurrence([&](Node* n) {
    if (out.size() < kLinearLimit) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
      if (out.size() == kLinearLimit) seen.insert(out.begin(), out.end());
    } else if (seen.insert(n).second) {
      out.push_back(n);
    }
  });
}

void Node::unlink_inputs() {
  for_each_input_occurrence([this](Node* input) {
    auto& u = input->users_;
    u.erase(std::remove(u.begin(), u.end(), this), u.end());
  });
}

void Node::link_inputs() {
  // Inputs are linked one after another, so a repeated input finds itself already last.
  for_each_input_occurrence([this](Node* input) {
    REMAT_ASSERT(input->graph_ == graph_)
        << name_ << " references " << input->name_ << " from another graph";
    if (input->users_.empty() || input->users_.back() != this) input->users_.push_back(this);
  });
}

void Node::set_args(std::vector<Argument> args) {
  unlink_inputs();
  args_ = std::move(args);
  link_inputs();
}

void Node::set_arg(size_t index, Argument value) {
  REMAT_ASSERT(index < args_.size()) << "arg " << index << " of " << name_;
  unlink_inputs();
  args_[index] = std::move(value);
  link_inputs();
}

void Node::set_kwargs(std::vector<Kwarg> kwargs) {
  unlink_inputs();
  if (kwargs.empty())
    kwargs_.reset();
  else
    kwargs_.ensure() = std::move(kwargs);
  link_inputs();
}

void Node::set_kwarg(std::string_view key, Argument value) {
  unlink_inputs();
  std::vector<Kwarg>& kw = kwargs_.ensure();
  auto it = std::find_if(kw.begin(), kw.end(), [&](const Kwarg& k) { return k.key.view() == key; });
  if (it != kw.end()) {
    it->value = std::move(value);
  } else {
    kw.push_back(Kwarg{InternedString(key), std::move(value)});
  }
  link_inputs();
}

void Node::replace_input(Node* old_input, Node* replacement) {
  unlink_inputs();
  auto swap = [&](Node* n) { return n == old_input ? replacement : n; };
  for (Argument& a : args_) map_nodes(a, swap);
  if (kwargs_)
    for (Kwarg& k : *kwargs_) map_nodes(k.value, swap);
  link_inputs();
}

void Node::set_users_order(const std::vector<Node*>& order) {
  REMAT_ASSERT(order.size() == users_.size() &&
               std::is_permutation(order.begin(), order.end(), users_.begin()))
      << "set_users_order on " << name_ << " with a different set of users";
  users_.assign(order.begin(), order.end());
}

std::vector<Node*> Node::replace_all_uses_with(Node* replacement) {
  REMAT_ASSERT(replacement != this) << "replace_all_uses_with(" << name_ << ") on itself";
  std::vector<Node*> changed(users_.begin(), users_.end());
  for (Node* user : changed) user->replace_input(this, replacement);
  return changed;
}

}  // namespace remat
