#include "remat/support/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>

namespace remat {
namespace {

Diagnostic io_error(const std::string& path, bool output, const std::string& what) {
  Diagnostic d;
  d.file = display_name(path, output);
  d.message = what;
  return d;
}

}  // namespace

Status make_folder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return io_error(dir, true, "cannot create the folder: " + ec.message());
  return {};
}

std::string display_name(const std::string& path, bool output) {
  if (path == "-") return output ? "<stdout>" : "<stdin>";
  return path;
}

Expected<std::string> read_file(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return io_error(path, false, "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path, false, std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size > 0) {
    data.resize(static_cast<size_t>(size));
    in.seekg(0, std::ios::beg);
    in.read(data.data(), size);
  } else {
    in.seekg(0, std::ios::beg);  // not seekable (a pipe): read as a stream
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (in.bad()) return io_error(path, false, "read error");
  return data;
}

Status write_file_atomic(const std::string& path, std::string_view contents) {
  if (path == "-") {
    std::cout.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    std::cout.flush();
    if (!std::cout) return io_error(path, true, "write error");
    return {};
  }
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::random_device rd;
  fs::path tmp = dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return io_error(path, true, std::string("cannot create: ") + std::strerror(errno));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      return io_error(path, true, "write error");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return io_error(path, true, "cannot replace file: " + ec.message());
  }
  return {};
}

Status write_whole_file(const std::string& path, std::string_view contents) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error(path, true, std::string("cannot create: ") + std::strerror(errno));
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return io_error(path, true, "write error: " + why);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0)
    return io_error(path, true, std::string("write error: ") + std::strerror(errno));
  return {};
}

}  // namespace remat
