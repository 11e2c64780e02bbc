// What the reading of a joint graph's op calls (region_calls) asks of one node of its checkpoint
// regions: the op a policy saw make it, whether it views, the name FX gave it, the line of the
// model that made it, the in-place change it may be part of. Internal to that reading
// (region_calls.cpp, dead_calls.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "remat/fxtext/traceback.h"
#include "remat/ir/graph_module.h"
#include "remat/ir/node_set.h"

namespace remat::partition::reading {

/// Whether selective checkpointing never hands `op` to a policy (torch.utils.checkpoint's
/// SAC_IGNORED_OPS: detach, and the metadata queries of functional tensors): its nodes take no
/// call index, and PyTorch tags them PREFER_RECOMPUTE.
bool unseen_op(std::string_view op);

/// An op as the joint graph shows it, the way a policy module keys it (its as_in_joint,
/// policy_module.cpp): an in-place op by its functional form (`aten.add_.Tensor` as
/// `aten.add.Tensor`), `aten.lift_fresh.default` as the lift_fresh_copy functionalization makes.
std::string as_in_joint(std::string op);

/// The op the policy saw when PyTorch made this node (`original_aten` meta: a decomposition's
/// nodes all carry the op it decomposed), as the joint shows it, if the graph recorded it.
std::optional<std::string> original_aten(const Node& n);

/// The node `n` reads first (a view's tensor), if its first argument is one.
const Node* first_input(const Node& n);

/// A view in functionalization's sense: an op whose schema returns an alias of its input
/// (transpose too), but not the detaches selective checkpointing makes of every call's output.
bool is_alias(const Node& n);

/// Whether both nodes' tensors have the same sizes.
bool same_shape(const Node& a, const Node& b);

/// The forward values that require grad: the primals whose gradients the joint returns, and what
/// a differentiable op computes from one (a floating-point value; not a detach, a factory or a
/// `*_like` of one).
NodeSet requiring_grad(const GraphModule& joint);

/// The base FX numbers `name` by (`view` for `view_2`), and its number there.
std::pair<std::string_view, long long> fx_base_and_number(std::string_view name);

/// The name FX gave the previous node made with `name`'s base: `view` for `view_1`, `view_1` for
/// `view_2`; none for a first one.
std::optional<std::string> previous_name(std::string_view name);

/// Whether `n` may be a view functionalization made again after an in-place op changed its
/// tensor (RegionCalls::remade): the node the view's own call made right before it is no longer
/// in the graph. (region_calls also asks that the view's tensor was changed in place.)
bool named_like_remade(const Graph& g, const Node& n);

/// The line of the model that made `n`: its traceback's innermost frame, if it has one.
std::optional<fxtext::TracebackFrame> model_line(const Node& n);

/// Whether both nodes have a traceback, and it ends on the same line (a live graph's tracebacks
/// also mark each op's columns, which a printed one drops).
bool same_line(const Node& a, const Node& b);

/// Whether the Python line that made `n` changes a tensor in place: an augmented assignment
/// (`x += b`), an in-place method (`x.masked_fill_(m, v)`) or an item assignment (`x[i] = v`).
bool in_place_code(const Node& n);

/// Whether ATen has an in-place form of `n`'s op (`aten.add_.Tensor` for `aten.add.Tensor`).
/// (An item assignment makes copy or index_put: copy_ and index_put_ are there too.)
bool has_in_place_form(const Node& n);

/// The write-backs of in-place changes of a view that stand for its base, each with the views the
/// change went through: the changed view, then those between it and the base, outermost first.
using NewBases = std::unordered_map<const Node*, std::vector<const Node*>>;

/// Whether `u` is the view `like` is: the same view op with the same arguments (not
/// Bailing-hybrid's `attn[..., i, :i]` of the next i), of the same shape (a view made again from a
/// new base).
bool same_view(const Node& u, const Node& like);

/// Whether `u` views `input` as `like` views its own (same_view).
bool views_as(const Node& u, const Node& input, const Node& like);

/// The view an in-place call changed, and the views between it and its base, outermost first
/// (the base itself last): where `op_node` is the functional form of an op that changed a view
/// in place (it takes the view first and keeps its shape); empty otherwise. A node that wrote an
/// earlier change back to the base (`new_bases`) stands for the base.
std::vector<const Node*> changed_view_chain(const Node& op_node, const NewBases& new_bases);

/// Whether no op after `op_node` on its line of the model computes something, views and their
/// write-backs aside: a line's in-place op is its last (`x[i] = f(x[i])`: f reads a view first,
/// the copy changes it).
bool last_op_of_its_line(const Node& op_node);

/// Whether `n`, of the base's shape, is a write-back the way its neighbour in FX's numbering shows
/// it (`view_17` for `view_16`): functionalization makes the changed view again from the new base
/// right after writing an in-place change back, so that node either died or views `n` in the
/// changed view's shape. (The sign of an in-place change a line's code hides, such as
/// nn.ReLU(inplace=True)'s, where the graph has no autograd sequence numbers: a printed one.)
bool views_changed_view_again(const Graph& g, const std::vector<const Node*>& chain, const Node& n);

}  // namespace remat::partition::reading
