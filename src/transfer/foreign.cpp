#include "transfer/foreign.hpp"

#include <array>
#include <utility>

namespace plaudit::transfer {
namespace {

constexpr std::array<std::pair<Source, std::string_view>, 1> kNames{{
    {Source::kDisqus, "disqus"},
}};

}  // namespace

std::optional<Source> ParseSource(std::string_view name) {
  for (const auto& [source, text] : kNames) {
    if (text == name) {
      return source;
    }
  }
  return std::nullopt;
}

std::string_view SourceName(Source s) {
  for (const auto& [source, text] : kNames) {
    if (source == s) {
      return text;
    }
  }
  return "?";
}

std::unique_ptr<ForeignStream> OpenForeign(Source source, std::istream& in, ForeignSink& sink) {
  switch (source) {
    case Source::kDisqus:
      return OpenDisqus(in, sink);
  }
  return nullptr;
}

Status ReadForeign(Source source, std::istream& in, ForeignSink& sink) {
  auto stream = OpenForeign(source, in, sink);
  if (!stream) {
    return Fail(ErrorCode::kInternal, "an unknown source");
  }
  for (;;) {
    PL_TRY(const bool more, stream->Step());
    if (!more) {
      return {};
    }
  }
}

}  // namespace plaudit::transfer
