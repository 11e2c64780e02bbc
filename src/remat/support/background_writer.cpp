#include "remat/support/background_writer.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "remat/support/file_io.h"
#include "remat/support/safe_path.h"

namespace remat {

BackgroundWriter::BackgroundWriter(std::string root, size_t max_queued, unsigned threads)
    : root_(std::move(root)), max_queued_(max_queued) {
  for (unsigned i = 0; i < std::max(threads, 1u); ++i) workers_.emplace_back([this] { run(); });
}

BackgroundWriter::~BackgroundWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void BackgroundWriter::write(std::string rel, std::string contents) {
  size_t bytes = contents.size();
  enqueue({std::move(rel), std::move(contents), nullptr, bytes});
}

void BackgroundWriter::write(std::string rel, std::function<std::string()> render, size_t bytes) {
  enqueue({std::move(rel), {}, std::move(render), bytes});
}

void BackgroundWriter::enqueue(Job job) {
  std::unique_lock lock(mutex_);
  // One job larger than the bound still goes through, alone.
  changed_.wait(lock, [&] { return queued_bytes_ == 0 || queued_bytes_ < max_queued_; });
  queued_bytes_ += job.bytes;
  queue_.push_back(std::move(job));
  changed_.notify_all();
}

Status BackgroundWriter::finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.empty() && busy_ == 0; });
  return error_;
}

void BackgroundWriter::run() {
  // Made so far by this thread: ask the file system once per folder (making one that another
  // thread made is no error).
  std::set<std::string, std::less<>> folders;
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    Job job = std::move(queue_.front());
    queue_.pop_front();
    size_t job_bytes = job.bytes;
    ++busy_;
    bool failed = !error_.ok();
    lock.unlock();
    Status s;
    if (failed) {
      // After an error the rest is dropped (what other threads hold already is still written):
      // the report fails as a whole.
    } else if (!is_safe_relative_path(job.rel)) {
      // Every name is made safe where it is made (safe_file_stem); this is the last guard.
      s = file_error(root_, "refused to write " + job.rel.substr(0, 120) +
                                ": not a plain path inside the output folder");
    } else {
      const std::string& rel = job.rel;
      if (job.render) job.contents = job.render();
      if (size_t slash = rel.rfind('/');
          slash != std::string::npos && !folders.contains(std::string_view(rel).substr(0, slash))) {
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(root_) / rel.substr(0, slash),
                                            ec);
        folders.insert(rel.substr(0, slash));
      }
      s = write_whole_file(root_ + "/" + rel, job.contents);  // "path: error: write error: why"
    }
    job = Job();  // what the page held is freed off the lock
    lock.lock();
    if (!s.ok() && error_.ok()) error_ = std::move(s);
    queued_bytes_ -= job_bytes;
    --busy_;
    changed_.notify_all();
  }
}

}  // namespace remat
