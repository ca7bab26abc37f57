#include "transfer/xml_reader.hpp"

#include <expat.h>

#include <array>
#include <memory>

#include "text/utf8.hpp"

namespace plaudit::transfer {
namespace {

// Names arrive as "namespace-URI|local" (XML_ParserCreateNS with '|') or "local".
std::string_view Local(const XML_Char* name) {
  std::string_view n(name);
  const size_t bar = n.rfind('|');
  return bar == std::string_view::npos ? n : n.substr(bar + 1);
}

}  // namespace

struct XmlStream::State {
  std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> owned{nullptr, &XML_ParserFree};
  XML_Parser parser = nullptr;
  XmlHandler* handler = nullptr;
  std::vector<std::string> path;
  std::string text;
  bool cut = false;
  bool leaf = true;  // no child element since the current one started
  Status failed;
  int64_t fed_through = 0;   // bytes fed, through the piece being parsed
  int64_t seen_through = 0;  // fed_through at the last callback

  void Saw() { seen_through = fed_through; }

  int64_t Line() const { return static_cast<int64_t>(XML_GetCurrentLineNumber(parser)); }

  void Stop(Status st) {
    failed = std::move(st);
    XML_StopParser(parser, XML_FALSE);
  }
};

namespace {

using State = XmlStream::State;

void OnStart(void* data, const XML_Char* name, const XML_Char** atts) {
  auto* s = static_cast<State*>(data);
  s->Saw();
  if (s->path.size() >= kMaxXmlDepth) {
    s->Stop(Fail(ErrorCode::kInvalidArgument, "line " + std::to_string(s->Line()) +
                                                  ": elements nested deeper than " +
                                                  std::to_string(kMaxXmlDepth)));
    return;
  }
  s->path.emplace_back(Local(name));
  s->text.clear();
  s->cut = false;
  s->leaf = true;
  std::vector<XmlAttribute> attributes;
  for (size_t i = 0; atts[i] != nullptr && atts[i + 1] != nullptr; i += 2) {
    attributes.push_back({Local(atts[i]), atts[i + 1]});
  }
  if (auto st = s->handler->Start(s->path, attributes, s->Line()); !st) {
    s->Stop(std::move(st));
  }
}

void OnEnd(void* data, const XML_Char*) {
  auto* s = static_cast<State*>(data);
  s->Saw();
  std::string text = s->leaf ? std::move(s->text) : std::string();
  if (auto st = s->handler->End(s->path, std::move(text), s->leaf && s->cut, s->Line()); !st) {
    s->Stop(std::move(st));
  }
  s->path.pop_back();
  s->text.clear();
  s->cut = false;
  s->leaf = false;  // the parent now has a child element
}

void OnText(void* data, const XML_Char* chars, int len) {
  auto* s = static_cast<State*>(data);
  s->Saw();
  if (s->cut) {
    return;  // the rest of a text already cut (a later piece must not follow the cut)
  }
  const auto n = static_cast<size_t>(len);
  if (s->text.size() + n > kMaxElementText) {
    s->cut = true;
    // Cut between characters (expat hands over whole ones), so a long text stays UTF-8.
    const std::string_view more(chars, n);
    s->text.append(
        chars, text::CutPoint(more, kMaxElementText - std::min(kMaxElementText, s->text.size())));
    return;
  }
  s->text.append(chars, n);
}

}  // namespace

XmlStream::XmlStream(std::istream& in, XmlHandler& handler)
    : in_(in), state_(std::make_unique<State>()) {
  state_->owned.reset(XML_ParserCreateNS(nullptr, '|'));
  state_->parser = state_->owned.get();
  state_->handler = &handler;
  if (state_->parser != nullptr) {
    XML_SetUserData(state_->parser, state_.get());
    XML_SetElementHandler(state_->parser, OnStart, OnEnd);
    XML_SetCharacterDataHandler(state_->parser, OnText);
  }
}

XmlStream::~XmlStream() = default;

Result<bool> XmlStream::Step() {
  if (done_) {
    return false;
  }
  XML_Parser parser = state_->parser;
  if (parser == nullptr) {
    return Fail(ErrorCode::kInternal, "cannot create an XML parser");
  }
  std::array<char, 1 << 16> buf{};
  in_.read(buf.data(), buf.size());
  const auto n = static_cast<int>(in_.gcount());
  if (in_.bad()) {
    return Fail(ErrorCode::kUnavailable, "cannot read the file");
  }
  const bool last = n == 0 || in_.eof();
  state_->fed_through = fed_ + n;
  if (XML_Parse(parser, buf.data(), n, last ? XML_TRUE : XML_FALSE) == XML_STATUS_ERROR) {
    done_ = true;
    if (!state_->failed) {
      return tl::unexpected(state_->failed.error());
    }
    return Fail(ErrorCode::kInvalidArgument,
                "line " + std::to_string(XML_GetCurrentLineNumber(parser)) +
                    ": not well-formed XML (" + XML_ErrorString(XML_GetErrorCode(parser)) + ")");
  }
  done_ = last;
  fed_ += n;
  if (!last && fed_ - state_->seen_through > kMaxXmlToken) {
    done_ = true;
    return Fail(ErrorCode::kInvalidArgument, "line " +
                                                 std::to_string(XML_GetCurrentLineNumber(parser)) +
                                                 ": a tag or token longer than 8 MiB");
  }
  return !last;
}

Status ReadXml(std::istream& in, XmlHandler& handler) {
  XmlStream stream(in, handler);
  for (;;) {
    PL_TRY(const bool more, stream.Step());
    if (!more) {
      return {};
    }
  }
}

}  // namespace plaudit::transfer
