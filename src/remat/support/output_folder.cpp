#include "remat/support/output_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "remat/support/file_io.h"

namespace remat {
namespace fs = std::filesystem;
namespace {

// Whether `inner` is `outer` or lies below it (both absolute and normalized).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto o = outer.begin(), i = inner.begin();
  for (; o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p).lexically_normal() : r;
}

// Linux's atomic exchange of two paths; 0, or -1 with errno (EINVAL where the file system
// cannot exchange).
int exchange_paths(const char* a, const char* b) {
#ifdef RENAME_EXCHANGE
  return ::renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
  (void)a;
  (void)b;
  errno = EINVAL;
  return -1;
#endif
}

// Takes the lock file `path` (made if missing); -1 when another run holds it. The file is
// removed by its holder at the end: a lock taken on a file that was removed meanwhile is let go
// and taken again on the new one.
Expected<int> take_lock(const std::string& path, const std::string& dir) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      return file_error(dir,
                        std::string("cannot create the folder's lock: ") + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int why = errno;
      ::close(fd);
      if (why == EWOULDBLOCK)
        return file_error(dir,
                          "another remat is writing this folder now; wait for it to finish "
                          "or choose another folder");
      return file_error(dir, std::string("cannot lock the folder: ") + std::strerror(why));
    }
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev)
      return fd;
    ::close(fd);  // its holder removed it as we took it
  }
  return file_error(dir, "cannot lock the folder: its lock file keeps changing");
}

}  // namespace

Expected<OutputFolder> OutputFolder::start(const std::string& dir, bool overwrite,
                                           const std::vector<std::string>& inputs) {
  std::error_code ec;
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  if (target.empty() || target == ".") target = ".";
  fs::path absolute = resolved(target);
  fs::path cwd = resolved(fs::current_path(ec));
  if (is_within(cwd, absolute)) {
    return file_error(dir,
                      "is the current folder or holds it: remat writes its output into a "
                      "folder of its own (-o NAME)");
  }
  for (const std::string& input : inputs) {
    if (input.empty() || input == "-") continue;
    if (is_within(resolved(input), absolute))
      return file_error(
          dir, "holds the input " + input + ": remat never writes over a folder its input is in");
  }
  fs::file_status st = fs::symlink_status(target, ec);
  if (fs::is_symlink(st))
    return file_error(dir,
                      "is a symbolic link: remat writes a folder of its own, never through a link");
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) return file_error(dir, "exists and is not a folder");
    if (!fs::is_empty(target, ec)) {
      if (!overwrite) return file_error(dir, "already exists (pass --overwrite to replace it)");
      if (!fs::is_regular_file(fs::symlink_status(target / kOutputMarker, ec)))
        return file_error(dir,
                          "holds files remat did not write (no " + std::string(kOutputMarker) +
                              " in it): --overwrite replaces only a folder remat wrote; choose "
                              "another folder, or empty this one yourself");
    }
  }

  OutputFolder out;
  out.dir_ = dir;
  out.target_ = target.string();
  fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  fs::create_directories(parent, ec);
  if (ec) return file_error(dir, "cannot create the folder: " + ec.message());
  std::string name = target.filename().string();
  out.lock_ = (parent / ("." + name + ".remat-lock")).string();
  Expected<int> fd = take_lock(out.lock_, dir);
  if (!fd) {
    out.lock_.clear();
    return fd.errors();
  }
  out.lock_fd_ = *fd;
  // What killed runs into DIR left (they no longer hold the lock): their staging folders, and
  // the `NAME.remat-tmp-PID` folders of remat before 0.1.
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    std::string n = entry.path().filename().string();
    if (n.starts_with("." + name + ".remat-staging-") || n.starts_with(name + ".remat-tmp-")) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
  out.staging_ = (parent / ("." + name + ".remat-staging-" + std::to_string(::getpid()))).string();
  if (!fs::create_directory(out.staging_, ec) || ec)
    return file_error(
        dir, "cannot create the output folder" + (ec ? ": " + ec.message() : std::string()));
  REMAT_TRY(write_whole_file(out.staging_ + "/" + std::string(kOutputMarker),
                             "Written by remat. `--overwrite` replaces this folder as a whole.\n"));
  return out;
}

OutputFolder::OutputFolder(OutputFolder&& other) noexcept
    : dir_(std::move(other.dir_)),
      target_(std::move(other.target_)),
      staging_(std::move(other.staging_)),
      lock_(std::move(other.lock_)),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      committed_(std::exchange(other.committed_, true)) {
  other.staging_.clear();
  other.lock_.clear();
}

OutputFolder::~OutputFolder() {
  if (!committed_ && !staging_.empty()) {
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
  }
  release();
}

void OutputFolder::release() {
  if (lock_fd_ >= 0) {
    ::unlink(lock_.c_str());  // while still held: the next run locks a new file
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
}

std::string OutputFolder::final_path(std::string_view path) const {
  if (!staging_.empty() && path.starts_with(staging_))
    return dir_ + std::string(path.substr(staging_.size()));
  return std::string(path);
}

Diagnostics OutputFolder::rename_in(Diagnostics errors) const {
  auto replace_all = [this](std::string& s) {
    for (size_t at = s.find(staging_); !staging_.empty() && at != std::string::npos;
         at = s.find(staging_, at + dir_.size()))
      s.replace(at, staging_.size(), dir_);
  };
  for (Diagnostic& d : errors) {
    replace_all(d.file);
    replace_all(d.message);
  }
  return errors;
}

Status OutputFolder::commit() {
  std::error_code ec;
  bool exists = fs::exists(fs::symlink_status(target_, ec));
  if (!exists) {
    fs::rename(staging_, target_, ec);
    if (ec) return file_error(dir_, "cannot move the finished output into place: " + ec.message());
  } else if (exchange_paths(staging_.c_str(), target_.c_str()) == 0) {
    // The previous DIR now sits at the staging path.
    fs::remove_all(staging_, ec);
  } else {
    // No exchange on this file system: the previous DIR is moved aside first (a run killed
    // between the two renames leaves it there, under the staging folder's name + `-old`).
    std::string old = staging_ + "-old";
    fs::rename(target_, old, ec);
    if (ec) return file_error(dir_, "cannot replace it: " + ec.message());
    fs::rename(staging_, target_, ec);
    if (ec) {
      std::error_code ignored;
      fs::rename(old, target_, ignored);
      return file_error(dir_, "cannot move the finished output into place: " + ec.message());
    }
    fs::remove_all(old, ec);
  }
  committed_ = true;
  release();
  return {};
}

}  // namespace remat
