// Whole files rendered and written on threads of their own: a producer of many pages (the report)
// hands each one over, rendered or as a function that renders it, and goes on reading while the
// other cores build the pages and the kernel creates and fills the files.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "remat/support/expected.h"

namespace remat {

class BackgroundWriter {
 public:
  /// Files are written under `root` by `threads` threads, in any order; their folders are made as
  /// needed. At most `max_queued` bytes wait at a time (write() blocks beyond that), so memory
  /// stays bounded. Two threads beside the producer pay on two cores: a thread waiting on the
  /// kernel (creating a file) leaves its core to the other (bench/trace_log_bench.cpp).
  explicit BackgroundWriter(std::string root, size_t max_queued = size_t{64} << 20,
                            unsigned threads = 2);
  ~BackgroundWriter();  ///< finishes what is queued
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  /// Queues `root/rel` with `contents`.
  void write(std::string rel, std::string contents);
  /// Queues `root/rel` with what `render` returns, called on the writer's thread: it must own
  /// what it reads. `bytes`: about what it holds, for the bound on what waits.
  void write(std::string rel, std::function<std::string()> render, size_t bytes);
  /// Waits until every queued file is written (and every render has run: what a render leaves
  /// elsewhere may be read after it); the first error, if any ("path: cannot write"). More may
  /// be written afterwards.
  Status finish();

 private:
  void run();

  std::string root_;
  size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable changed_;
  struct Job {
    std::string rel, contents;
    std::function<std::string()> render;  // when set, makes `contents`
    size_t bytes = 0;
  };
  void enqueue(Job job);

  std::deque<Job> queue_;
  size_t queued_bytes_ = 0;
  unsigned busy_ = 0;  // workers holding a file they took off the queue
  bool stopping_ = false;
  Status error_;
  std::vector<std::thread> workers_;  // last: started once everything above exists
};

}  // namespace remat
