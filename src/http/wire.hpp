#pragma once
// A Response as the bytes of an HTTP/1.x message, in one buffer.
//
// Why not Beast's serializer: it walks a buffers_cat_view of the header fields and the body,
// and wants an async composed write per response (its buffer iteration alone was ~3% of
// plauditd's CPU on a like in perf). One string is one non-blocking send(2) in the common
// case. The framing rules are Beast's (message::prepare_payload, keep_alive): no
// Content-Length on 1xx/204/304, "Connection: close" on HTTP/1.1 when the connection ends,
// "Connection: keep-alive" on HTTP/1.0 when it does not.
#include <string>

#include "http/request.hpp"

namespace plaudit::http {

// `version` is 10 or 11 (the request's). A HEAD answer keeps the GET's Content-Length and
// drops the body. Header names and values are the server's own: CR and LF in them are
// dropped rather than written, so no header can split the message.
std::string SerializeResponse(const Response& response, unsigned version, bool keep_alive,
                              bool head);
// What goes on the wire after SerializeResponse's bytes: a shared body, unless the answer
// has none (HEAD, 204, 304); empty otherwise (a plain body is in those bytes).
std::string_view BodyAfterHead(const Response& response, bool head);

}  // namespace plaudit::http
