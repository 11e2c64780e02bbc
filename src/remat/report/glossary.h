// The partitioner's reasons in plain words: what each means and what the user can do about it
// (which tag, which policy, which option). Every reason on a partition page or in a joint graph's
// panel links to its entry on the site's glossary.html.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace remat::report {

struct GlossaryEntry {
  std::string_view id;       ///< the anchor: `glossary.html#cheapest-cut`
  std::string_view opening;  ///< the words every reason of this kind starts with
  std::string_view term;     ///< the heading
  std::string_view meaning;  ///< HTML
  std::string_view action;   ///< HTML: what to change to get the other choice
};

std::span<const GlossaryEntry> glossary();
/// The entry a reason belongs to, by its opening words; nullptr for one remat does not know.
const GlossaryEntry* glossary_entry(std::string_view reason);
/// `reason` as HTML, linked to its entry: `glossary` is the page (`../glossary.html`), empty
/// for an entry on the same page.
std::string reason_html(std::string_view reason, std::string_view glossary);
/// The glossary's body (with `<h1>`): the entries, saved reasons, recompute reasons and bans.
std::string glossary_body();

}  // namespace remat::report
