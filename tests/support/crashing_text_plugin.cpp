// A Graphviz text-layout plugin that aborts as soon as it is asked to measure text: what a
// cairo/pango plugin does on a machine where its libraries or fonts are broken. Loaded in place of
// libgvplugin_pango by tests/cli/graphviz_core_fallback.sh, to show that graphprof still draws the picture
// (through Graphviz's core SVG renderer) instead of a Graphviz error.
#include <gvplugin_textlayout.h>  // pkg-config names the graphviz folder itself

#include <cstdlib>

namespace {

// The engine's signature differs between Graphviz versions (boolean or bool): deduced from it.
template <typename Result, typename... Args>
Result abort_on_text(Args...) {
  std::abort();
}

gvtextlayout_engine_t g_engine = {abort_on_text};
gvplugin_installed_t g_textlayouts[] = {{0, "textlayout", 10, &g_engine, nullptr}, {0, nullptr, 0, nullptr, nullptr}};
gvplugin_api_t g_apis[] = {{API_textlayout, g_textlayouts}, {static_cast<api_t>(0), nullptr}};

}  // namespace

extern "C" {
gvplugin_library_t gvplugin_pango_LTX_library = {const_cast<char*>("cairo"), g_apis};
}
