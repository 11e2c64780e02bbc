// NodeSet and NodeMap<T>: per-node data of one graph indexed by node id, for analyses.
#pragma once

#include <cstdint>
#include <vector>

#include "remat/ir/graph.h"

namespace remat {

/// A set of nodes of one graph: a bit per node id (Note [node ids]). Membership is a shift and
/// a mask, with no hashing and no allocation per element. Nodes created after the set was sized
/// are welcome: it grows on insert. Holds only nodes of the graph it was made for.
class NodeSet {
 public:
  NodeSet() = default;
  explicit NodeSet(const Graph& g) : words_((g.id_bound() + 63) / 64) {}

  [[nodiscard]] bool contains(const Node* n) const {
    uint32_t id = n->id();
    return id / 64 < words_.size() && ((words_[id / 64] >> (id % 64)) & 1) != 0;
  }
  /// Adds `n`; true when it was not there yet.
  bool insert(const Node* n) {
    uint32_t id = n->id();
    if (id / 64 >= words_.size()) words_.resize(id / 64 + 1);
    uint64_t bit = uint64_t{1} << (id % 64);
    if ((words_[id / 64] & bit) != 0) return false;
    words_[id / 64] |= bit;
    ++size_;
    return true;
  }
  /// Removes `n`; true when it was there.
  bool erase(const Node* n) {
    if (!contains(n)) return false;
    words_[n->id() / 64] &= ~(uint64_t{1} << (n->id() % 64));
    --size_;
    return true;
  }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }

 private:
  std::vector<uint64_t> words_;
  size_t size_ = 0;
};

/// A value per node of one graph, indexed by node id; nodes never written read as `fallback`.
template <class T>
class NodeMap {
 public:
  NodeMap() = default;
  explicit NodeMap(const Graph& g, T fallback = T())
      : values_(g.id_bound(), fallback), fallback_(fallback) {}

  [[nodiscard]] const T& operator[](const Node* n) const {
    return n->id() < values_.size() ? values_[n->id()] : fallback_;
  }
  /// The value, or the fallback for a node the map has not grown to; never grows.
  [[nodiscard]] const T& get(const Node* n) const { return (*this)[n]; }
  T& operator[](const Node* n) {
    if (n->id() >= values_.size()) values_.resize(n->id() + 1, fallback_);
    return values_[n->id()];
  }

 private:
  std::vector<T> values_;
  T fallback_{};
};

/// Marks for many small searches over one graph (a walk from each node, say): starting a new
/// search forgets every mark in O(1), where a fresh NodeSet would cost a pass over the ids.
class NodeMarks {
 public:
  NodeMarks() = default;
  explicit NodeMarks(const Graph& g) : search_of_(g, 0) {}
  void new_search() { ++search_; }
  /// Marks `n` in the current search; true when it was not marked yet.
  bool mark(const Node* n) {
    uint32_t& s = search_of_[n];
    if (s == search_) return false;
    s = search_;
    return true;
  }

 private:
  NodeMap<uint32_t> search_of_;
  uint32_t search_ = 1;
};

}  // namespace remat
