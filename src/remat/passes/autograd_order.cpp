#include "remat/passes/autograd_order.h"

#include <algorithm>

#include "remat/ir/input_lists.h"
#include "remat/ir/node_set.h"

namespace remat::passes {

void reorder_like_autograd(Graph& g) {
  const InputLists input_lists(g);
  Node* first_bw = nullptr;
  for (Node* n : g.nodes()) {
    if (n->op() == OpKind::Placeholder) continue;
    auto ins = input_lists.of(n);
    if (std::any_of(ins.begin(), ins.end(), [](const Node* in) {
          return in->op() == OpKind::Placeholder && is_tangent(*in);
        })) {
      first_bw = n;
      break;
    }
  }
  if (!first_bw) return;
  std::vector<Node*> originals;
  for (Node* n : g.nodes()) originals.push_back(n);
  std::vector<Node*> order;
  NodeSet placed(g);
  auto waiting = [&](const Node* n) {
    return !placed.contains(n) && n->op() != OpKind::Placeholder;
  };
  // Depth first, inputs in graph order, each placed after its inputs. An explicit stack: a
  // backward that recomputes a whole forward would nest as deep as the forward is long.
  struct Frame {
    Node* node;
    std::vector<Node*> inputs;  // sorted in graph order
    size_t next = 0;
  };
  auto frame = [&](Node* n) {
    auto ins = input_lists.of(n);
    Frame f{n, std::vector<Node*>(ins.begin(), ins.end())};
    std::sort(f.inputs.begin(), f.inputs.end(), [](Node* a, Node* b) { return a->is_before(b); });
    return f;
  };
  std::vector<Frame> stack;
  auto place = [&](Node* root) {
    if (!waiting(root)) return;
    stack.push_back(frame(root));
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.inputs.size()) {
        Node* in = top.inputs[top.next++];
        if (waiting(in)) stack.push_back(frame(in));  // `top` is not used after this
        continue;
      }
      placed.insert(top.node);
      order.push_back(top.node);
      stack.pop_back();
    }
  };
  bool started = false;
  for (Node* n : originals) {
    started = started || n == first_bw;
    if (started) place(n);
  }
  // Nodes before the first backward node that nothing placed keep their relative order in front.
  std::vector<Node*> front;
  for (Node* n : originals) {
    if (n->op() != OpKind::Placeholder && !placed.contains(n)) front.push_back(n);
  }
  Node* anchor = nullptr;
  for (Node* n : g.nodes()) {
    if (n->op() != OpKind::Placeholder) break;
    anchor = n;
  }
  for (Node* n : front) {
    if (anchor) g.move_after(n, anchor);
    anchor = n;
  }
  for (Node* n : order) {
    if (anchor) g.move_after(n, anchor);
    anchor = n;
  }
}

void raise_getitems(Graph& g) {
  std::vector<Node*> getitems;
  for (Node* n : g.nodes()) {
    if (is_getitem(*n) && !n->args().empty() && n->args()[0].is_node()) getitems.push_back(n);
  }
  for (auto it = getitems.rbegin(); it != getitems.rend(); ++it)
    g.move_after(*it, (*it)->args()[0].as_node());
}

namespace {

// A pass that reorders: changed when the order of the nodes differs.
PassInfo reordering_pass(std::string name, std::string summary, void (*reorder)(Graph&)) {
  PassInfo p;
  p.name = std::move(name);
  p.summary = std::move(summary);
  p.on_graph = [reorder](GraphModule& m) -> Expected<PassResult> {
    std::vector<const Node*> before;
    for (const Node* n : m.graph().nodes()) before.push_back(n);
    reorder(m.graph());
    PassResult r;
    size_t i = 0;
    int64_t moved = 0;
    for (const Node* n : m.graph().nodes()) {
      if (before[i++] != n) ++moved;
    }
    r.changed = moved > 0;
    r.statistics.emplace_back("moved", moved);  // nodes at a new position
    return r;
  };
  return p;
}

}  // namespace

PassInfo autograd_order_pass() {
  return reordering_pass("autograd-order",
                         "from the first node that reads a tangent on, each node right after the "
                         "inputs it waits for: recomputed forward chains just before their first "
                         "use, as the autograd engine runs them",
                         reorder_like_autograd);
}

PassInfo raise_getitems_pass() {
  return reordering_pass("raise-getitems",
                         "every getitem right after the node whose tuple it reads, keeping their "
                         "relative order",
                         raise_getitems);
}

}  // namespace remat::passes
