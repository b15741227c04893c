// Rendering a GraphView with Graphviz in process. This is the only file that includes gvc.h:
// it builds a fresh Agraph from the view (never from the driver's dump, whose record labels
// are unreadable), lays it out with "dot" and renders into memory (in a process of its own:
// layout_process.cpp), then writes atomically.
#include <graphviz/gvc.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_render.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphviz_messages.hpp"
#include "layout_process.hpp"

namespace gp {

namespace {

// One Graphviz context for the whole process, made on first use and never freed. Freeing a
// context and making another (a second render in one process) let Graphviz 2.43's cairo/pango
// plugin reach font data that belonged to the first one: a heap-use-after-free under ASan in
// GraphRender.WritesPngAndSvg. The context holds only the plugin registry, which is the same
// for every render; it stays reachable, so LeakSanitizer does not count it.
std::vector<std::string> plugin_list(GVC_t* gvc, const char* kind);

// The context and what its plugin registry offers, listed once (gvPluginList leaks the
// duplicates it drops, so listing per render would leak per render).
struct Graphviz {
  GVC_t* context = nullptr;
  std::vector<std::string> layouts, devices, renderers;
};

const Graphviz& process_graphviz() {
  static const Graphviz g = [] {
    Graphviz x;
    x.context = gvContext();
    if (x.context == nullptr) return x;
    x.layouts = plugin_list(x.context, "layout");
    x.devices = plugin_list(x.context, "device");
    x.renderers = plugin_list(x.context, "render");
    return x;
  }();
  if (g.context == nullptr) throw environment_error("Graphviz: gvContext() failed; is libgvc installed correctly?");
  return g;
}

// Graphviz's core plugins alone (its SVG renderer and the dot layout), opened here from the folder
// of its plugins, with no plugin registry read: no other plugin is ever loaded. For a registry
// that holds a plugin which fails (a text-layout plugin, cairo/pango, that cannot load its
// libraries or crashes without fonts): text widths are then Graphviz's own estimate. Made in the
// layout process only (it is never freed: the process ends after one render).
const Graphviz& core_only_graphviz() {
  static const Graphviz g = [] {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&gvContext), &info) == 0 || info.dli_fname == nullptr)
      throw environment_error("Graphviz: cannot tell where libgvc is loaded from");
    const std::filesystem::path folder = std::filesystem::path(info.dli_fname).parent_path() / "graphviz";
    // The plugins' file names carry a version ("libgvplugin_core.so.6"): the first file so named.
    auto open_plugin = [&folder](const std::string& name) {
      std::error_code ec;
      std::vector<std::string> files;
      for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        const std::string file = entry.path().filename().string();
        if (file.rfind("libgvplugin_" + name + ".so", 0) == 0) files.push_back(entry.path().string());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files)
        if (void* lib = ::dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL))
          if (void* symbol = ::dlsym(lib, ("gvplugin_" + name + "_LTX_library").c_str())) return symbol;
      throw environment_error("Graphviz's " + name + " plugin is not in " + folder.string());
    };
    static lt_symlist_t builtins[] = {{"gvplugin_core_LTX_library", open_plugin("core")},
                                      {"gvplugin_dot_layout_LTX_library", open_plugin("dot_layout")},
                                      {nullptr, nullptr}};
    Graphviz x;
    x.context = gvContextPlugins(builtins, 0);
    if (x.context == nullptr) throw environment_error("Graphviz: gvContextPlugins() failed");
    x.layouts = plugin_list(x.context, "layout");
    x.devices = plugin_list(x.context, "device");
    x.renderers = plugin_list(x.context, "render");
    return x;
  }();
  return g;
}

// Graphviz keeps global state (the error callback, the layout's statics): one render at a time.
std::mutex g_render_mutex;

struct GraphCloser {
  void operator()(Agraph_t* g) const {
    if (g != nullptr) agclose(g);
  }
};

std::vector<std::string> plugin_list(GVC_t* gvc, const char* kind) {
  int n = 0;
  char** list = gvPluginList(gvc, kind, &n, nullptr);
  std::vector<std::string> out;
  for (int i = 0; i < n && list != nullptr; ++i) {
    out.emplace_back(list[i]);
    std::free(list[i]);
  }
  std::free(list);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// "a, b" or "none".
std::string listed(const std::vector<std::string>& v) { return v.empty() ? "none" : join(v, ", "); }

// Plain Graphviz labels take "\n" escapes; a backslash in a name must be doubled.
std::string label_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out;
}

std::string html_escape(const std::string& text) { return markup_escape(text); }

// Dark fills get white text.
bool is_dark(const std::string& hex) {
  if (hex.size() != 7 || hex[0] != '#') return false;
  const long v = std::strtol(hex.c_str() + 1, nullptr, 16);
  const double r = static_cast<double>((v >> 16) & 0xff), g = static_cast<double>((v >> 8) & 0xff),
               b = static_cast<double>(v & 0xff);
  return (0.299 * r + 0.587 * g + 0.114 * b) / 255.0 < 0.5;
}

constexpr const char* kCriticalColor = "#1d4ed8";

// cgraph returns null only when it runs out of memory or is misused: an internal error.
template <typename T>
T* checked(T* object, const char* call) {
  if (object == nullptr) throw internal_error(std::string("Graphviz: ") + call + " failed");
  return object;
}

class Builder {
 public:
  explicit Builder(Agraph_t* g) : g_(g) {
    // Declaring every attribute with its default once makes the per-object sets cheap.
    graph_attr("rankdir", "TB");
    graph_attr("fontname", "Helvetica");
    graph_attr("fontsize", "12");
    graph_attr("labelloc", "t");
    graph_attr("labeljust", "l");
    graph_attr("nodesep", "0.25");
    graph_attr("ranksep", "0.35");
    graph_attr("pad", "0.25");
    graph_attr("bgcolor", "white");
    graph_attr("newrank", "true");
    n_shape_ = agattr(g_, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
    n_style_ = agattr(g_, AGNODE, const_cast<char*>("style"), const_cast<char*>("rounded,filled"));
    n_label_ = agattr(g_, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
    n_fill_ = agattr(g_, AGNODE, const_cast<char*>("fillcolor"), const_cast<char*>("#e8e8e8"));
    n_color_ = agattr(g_, AGNODE, const_cast<char*>("color"), const_cast<char*>("#606060"));
    n_pen_ = agattr(g_, AGNODE, const_cast<char*>("penwidth"), const_cast<char*>("1"));
    n_font_color_ = agattr(g_, AGNODE, const_cast<char*>("fontcolor"), const_cast<char*>("black"));
    n_tooltip_ = agattr(g_, AGNODE, const_cast<char*>("tooltip"), const_cast<char*>(""));
    agattr(g_, AGNODE, const_cast<char*>("fontname"), const_cast<char*>("Helvetica"));
    agattr(g_, AGNODE, const_cast<char*>("fontsize"), const_cast<char*>("11"));
    agattr(g_, AGNODE, const_cast<char*>("margin"), const_cast<char*>("0.10,0.05"));
    agattr(g_, AGNODE, const_cast<char*>("height"), const_cast<char*>("0.3"));
    e_color_ = agattr(g_, AGEDGE, const_cast<char*>("color"), const_cast<char*>("#707070"));
    e_pen_ = agattr(g_, AGEDGE, const_cast<char*>("penwidth"), const_cast<char*>("1"));
    e_style_ = agattr(g_, AGEDGE, const_cast<char*>("style"), const_cast<char*>("solid"));
    agattr(g_, AGEDGE, const_cast<char*>("arrowsize"), const_cast<char*>("0.6"));
  }

  void graph_attr(const char* name, const char* value) {
    agattr(g_, AGRAPH, const_cast<char*>(name), const_cast<char*>(value));
  }

  void set(void* obj, Agsym_t* sym, const std::string& v) { agxset(obj, sym, const_cast<char*>(v.c_str())); }

  void html_label(void* obj, Agraph_t* root, const std::string& html) {
    Agsym_t* sym = agattr(root, agobjkind(obj), const_cast<char*>("label"), nullptr);
    if (sym == nullptr) sym = agattr(root, agobjkind(obj), const_cast<char*>("label"), const_cast<char*>(""));
    char* h = agstrdup_html(root, const_cast<char*>(html.c_str()));
    agxset(obj, sym, h);
    agstrfree(root, h);
  }

  void build(const GraphView& v) {
    // Clusters first, so that boxes are created inside them.
    std::vector<Agraph_t*> home(v.boxes.size(), g_);
    for (const ViewCluster& c : v.clusters) {
      const std::string name = "cluster_g" + std::to_string(c.graph_id);
      Agraph_t* sg = checked(agsubg(g_, const_cast<char*>(name.c_str()), 1), "agsubg");
      agsafeset(sg, const_cast<char*>("label"), const_cast<char*>(label_escape(c.title).c_str()), const_cast<char*>(""));
      agsafeset(sg, const_cast<char*>("style"), const_cast<char*>("dashed,rounded"), const_cast<char*>(""));
      agsafeset(sg, const_cast<char*>("color"), const_cast<char*>("#8a8a8a"), const_cast<char*>(""));
      agsafeset(sg, const_cast<char*>("fontsize"), const_cast<char*>("10"), const_cast<char*>(""));
      for (std::size_t b : c.boxes) home[b] = sg;
    }
    std::vector<Agnode_t*> nodes(v.boxes.size(), nullptr);
    for (std::size_t i = 0; i < v.boxes.size(); ++i) {
      const ViewBox& b = v.boxes[i];
      const std::string name = "b" + std::to_string(i);
      Agnode_t* n = checked(agnode(home[i], const_cast<char*>(name.c_str()), 1), "agnode");
      nodes[i] = n;
      set(n, n_label_, label_escape(b.label));
      set(n, n_fill_, b.fill);
      set(n, n_tooltip_, label_escape(b.tooltip));
      if (b.members.size() > 1) {
        // A folded box looks like a stack of cards.
        set(n, n_shape_, "box3d");
        set(n, n_style_, "filled");
      }
      if (b.kind == NodeKind::kChildGraph || b.kind == NodeKind::kConditional) set(n, n_style_, "rounded,filled,bold");
      if (is_dark(b.fill)) set(n, n_font_color_, "white");
      if (b.critical) {
        set(n, n_color_, kCriticalColor);
        set(n, n_pen_, "3");
      }
    }
    for (const ViewEdge& e : v.edges) {
      Agedge_t* ed = checked(agedge(g_, nodes[e.from], nodes[e.to], nullptr, 1), "agedge");
      if (e.runs_body) {
        set(ed, e_style_, "dashed");
        set(ed, e_color_, "#9a9a9a");
      } else if (e.critical) {
        set(ed, e_color_, kCriticalColor);
        set(ed, e_pen_, "2.5");
      }
    }
    // The title goes in the graph label, above the drawing; the legend is a borderless node on
    // the first rank (a table inside the label would be stretched to the title's width).
    std::string html;
    std::size_t start = 0;
    while (start <= v.title.size()) {
      const auto nl = v.title.find('\n', start);
      const std::string line = v.title.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      html += (start == 0 ? "<B>" + html_escape(line) + "</B>" : html_escape(line)) + "<BR ALIGN=\"LEFT\"/>";
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    html_label(g_, g_, html);
    if (!v.legend.empty()) {
      Agraph_t* top = checked(agsubg(g_, const_cast<char*>("legend_rank"), 1), "agsubg");
      agsafeset(top, const_cast<char*>("rank"), const_cast<char*>("min"), const_cast<char*>(""));
      Agnode_t* legend = checked(agnode(top, const_cast<char*>("legend"), 1), "agnode");
      set(legend, n_shape_, "plaintext");
      set(legend, n_style_, "solid");
      std::string table = "<TABLE BORDER=\"0\" CELLSPACING=\"3\" CELLPADDING=\"3\"><TR>";
      for (const auto& l : v.legend)
        table += "<TD BGCOLOR=\"" + l.fill + "\" BORDER=\"1\" COLOR=\"#606060\"><FONT POINT-SIZE=\"10\"" +
                 (is_dark(l.fill) ? " COLOR=\"white\"" : "") + ">" + html_escape(l.label) + "</FONT></TD>";
      table += "</TR></TABLE>";
      html_label(legend, g_, table);
    }
  }

 private:
  Agraph_t* g_;
  Agsym_t *n_shape_, *n_style_, *n_label_, *n_fill_, *n_color_, *n_pen_, *n_font_color_, *n_tooltip_;
  Agsym_t *e_color_, *e_pen_, *e_style_;
};

}  // namespace

std::string render_format(const RenderOptions& options) {
  auto lower = [](std::string t) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return t;
  };
  auto known = [](const std::string& t) { return t == "png" || t == "svg" || t == "pdf"; };
  std::string ext = lower(std::filesystem::path(options.output).extension().string());
  if (!ext.empty() && ext[0] == '.') ext.erase(0, 1);
  const std::string f = options.format.empty() ? ext : lower(options.format);
  // A PDF written into x.svg is a file that no viewer opens as what its name says.
  if (known(f) && known(ext) && f != ext)
    throw usage_error("--format " + options.format + " disagrees with -o " + options.output + "; drop one of them");
  if (!known(f))
    throw usage_error("-o " + options.output + ": cannot tell the format from the name; use .png, .svg or .pdf" +
                      (options.format.empty() ? std::string() : " (--format " + options.format + ")"));
  return f;
}

namespace {

// Lays out `view` and renders it as `format` into memory; notes get Graphviz's warnings. With
// `core_only`, through Graphviz's core plugins alone (core_only_graphviz).
std::string render_bytes(const GraphView& view, const std::string& format, bool core_only, std::vector<std::string>& notes) {
  const std::lock_guard<std::mutex> lock(g_render_mutex);
  detail::GraphvizMessages messages;
  const Graphviz& graphviz = core_only ? core_only_graphviz() : process_graphviz();
  GVC_t* const context = graphviz.context;
  const std::vector<std::string>& layouts = graphviz.layouts;
  if (!contains(layouts, "dot"))
    throw environment_error("Graphviz has no 'dot' layout plugin (found: " + listed(layouts) +
                            "); its plugin registry (config6a) is missing or stale: run `dot -c` as root, "
                            "or unset GVBINDIR");
  const std::vector<std::string>& devices = graphviz.devices;
  if (!contains(devices, format))
    throw environment_error("Graphviz cannot write " + format + " here (found: " + listed(devices) + ")" +
                            (format == "svg" ? std::string()
                                                    : "; install the cairo/pango plugin (Debian: libgvc6) and run "
                                                      "`dot -c` as root"));
  // Prefer cairo for bitmaps and PDF: anti-aliased text and UTF-8 (the "µ" in times).
  std::string device = format;
  if (format != "svg" && contains(graphviz.renderers, "cairo")) device += ":cairo";

  std::unique_ptr<Agraph_t, GraphCloser> g(agopen(const_cast<char*>("graphprof"), Agdirected, nullptr));
  if (!g) throw internal_error("Graphviz: agopen failed");
  Builder(g.get()).build(view);

  // A layout that fails is a failure of this dump's picture (exit 3 naming it), not of graphprof.
  const std::string source = view.source.empty() ? std::string("the graph") : view.source;
  if (gvLayout(context, g.get(), "dot") != 0) {
    const auto msgs = messages.lines();
    throw input_error(source + ": the Graphviz layout failed: " + (msgs.empty() ? std::string("no message") : msgs.front()));
  }
  char* data = nullptr;
  unsigned int length = 0;
  const int rc = gvRenderData(context, g.get(), device.c_str(), &data, &length);
  std::unique_ptr<char, void (*)(char*)> owned(data, gvFreeRenderData);
  gvFreeLayout(context, g.get());
  if (rc != 0 || data == nullptr) {
    const auto msgs = messages.lines();
    throw input_error(source + ": Graphviz could not render " + format + ": " +
                      (msgs.empty() ? std::string("no message") : msgs.front()));
  }
  for (const auto& line : messages.lines()) notes.push_back("Graphviz: " + line);
  return std::string(data, length);
}

// The picture through Graphviz's plugins as installed; an SVG that they fail to draw (a plugin
// that cannot load or crashes) is drawn again through its core plugins alone, and a note says so.
// The first failure is what is thrown when that fails too.
std::string render_or_core_svg(const GraphView& view, const std::string& format, std::vector<std::string>& notes) {
  bool hit_limits = false;
  try {
    return detail::render_in_child(view, format, false, render_bytes, notes, hit_limits);
  } catch (const Error& first) {
    if (format != "svg" || hit_limits) throw;
    std::vector<std::string> core_notes;
    std::string bytes;
    try {
      bytes = detail::render_in_child(view, format, true, render_bytes, core_notes, hit_limits);
    } catch (const Error&) {
      throw first;
    }
    // "X.dot: the Graphviz layout failed: ... (limits: ...); nothing was written" -> what failed.
    std::string why = first.what();
    const std::string source = view.source.empty() ? std::string("the graph") : view.source;
    if (why.rfind(source + ": ", 0) == 0) why.erase(0, source.size() + 2);
    why = why.substr(0, why.find(" (limits: "));
    notes.push_back("drawn by Graphviz's core SVG renderer (text widths estimated): through its installed plugins, " + why);
    notes.insert(notes.end(), core_notes.begin(), core_notes.end());
    return bytes;
  }
}

}  // namespace

RenderResult render_view(const GraphView& view, const RenderOptions& options) {
  RenderResult result;
  result.format = render_format(options);
  for (const auto& s : view.simplified) result.notes.push_back("simplified: " + s);
  const std::string bytes = render_or_core_svg(view, result.format, result.notes);
  write_file_atomic(options.output, bytes);
  result.bytes = bytes.size();
  return result;
}

std::string render_svg(const GraphView& view, std::vector<std::string>* notes) {
  std::vector<std::string> ignored;
  return render_or_core_svg(view, "svg", notes != nullptr ? *notes : ignored);
}

}  // namespace gp

namespace gp::detail {

namespace {
std::string g_messages;  // what Graphviz reported while a GraphvizMessages was alive

int collect_message(char* msg) {
  if (msg != nullptr) g_messages += msg;
  return 0;
}
}  // namespace

GraphvizMessages::GraphvizMessages() : previous_(agseterrf(collect_message)) { g_messages.clear(); }

GraphvizMessages::~GraphvizMessages() { agseterrf(previous_); }

std::vector<std::string> GraphvizMessages::lines() const {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < g_messages.size()) {
    const auto nl = g_messages.find('\n', start);
    std::string line = g_messages.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    for (const char* prefix : {"Error: ", "Warning: ", "<stdin>: "})
      if (line.rfind(prefix, 0) == 0) line.erase(0, std::char_traits<char>::length(prefix));
    if (!line.empty()) out.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

bool GraphvizMessages::has_errors() const { return g_messages.find("Error") != std::string::npos; }

}  // namespace gp::detail
