#pragma once
// A notice as an RFC 5322 message: multipart/alternative of the text and the HTML part (each
// UTF-8, base64), an RFC 2047 subject, Message-ID from the notice's event id (so a mail sent
// twice, at least once on the wire, is the same message to the reader's client), and the
// one-click unsubscribe headers of RFC 2369 and RFC 8058.
#include <cstdint>
#include <string>

#include "notify/letters.hpp"

namespace plaudit::notify {

struct Envelope {
  std::string from;         // the From header as configured: "Plaudit <comments@blog.example>"
  std::string to;           // a bare address
  std::string event_id;     // the outbox row's
  std::string domain;       // the right side of Message-ID (the public URL's host)
  std::string unsubscribe;  // "" for none
  int64_t date_ms = 0;
};

std::string MimeMessage(const Envelope& e, const Letter& l);

// The bare address of a From setting ("Name <a@b>" → "a@b"; "a@b" → "a@b").
std::string BareAddress(const std::string& from);

}  // namespace plaudit::notify
