#include "common/gzip.hpp"

#include <zlib.h>

namespace plaudit {
namespace {

constexpr int kGzipWindow = 15 + 16;  // 32 KiB window, gzip header and trailer

}  // namespace

std::optional<std::string> Gzip(std::string_view data) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  const size_t written = out.size() - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    return std::nullopt;
  }
  out.resize(written);
  return out;
}

std::optional<std::string> Gunzip(std::string_view data) {
  z_stream z{};
  if (inflateInit2(&z, kGzipWindow) != Z_OK) {
    return std::nullopt;
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char chunk[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof(chunk);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      break;
    }
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    return std::nullopt;
  }
  return out;
}

}  // namespace plaudit
