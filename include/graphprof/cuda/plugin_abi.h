/* The plugin boundary between graphprof and a workload library loaded with --load (docs/api.md).
 *
 * It is plain C on purpose: graphprof and a plugin may be built by different compilers and
 * standard libraries, so only C types cross — fixed-width integers, const char*, function
 * pointers, fixed-size buffers. No C++ object, exception or std::string ever crosses; the C++
 * adapter (graphprof/cuda/plugin.hpp) turns a normal gp::Workload class into this table, and
 * graphprof turns the table back into a gp::Workload on its side.
 *
 * A plugin exports one function, graphprof_plugin(), returning a pointer to a static gp_plugin.
 * Compatibility rule: graphprof accepts a plugin whose api_major equals its own and whose
 * struct_size / workload_desc_size are at least the sizes of this version; a later minor
 * version only appends fields. Anything else is refused with a one-line message (exit 3). */
#ifndef GRAPHPROF_PLUGIN_ABI_H
#define GRAPHPROF_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GP_PLUGIN_API_MAJOR 1
#define GP_PLUGIN_API_MINOR 0
#define GP_PLUGIN_ENTRY_SYMBOL "graphprof_plugin"

/* The CUDA runtime handle types, declared without including CUDA: cudaStream_t is
 * struct CUstream_st*, cudaGraph_t struct CUgraph_st*, cudaGraphExec_t struct CUgraphExec_st*. */
struct CUstream_st;
struct CUgraph_st;
struct CUgraphExec_st;

/* Modes, as passed to unsupported_reason. */
enum { GP_PLUGIN_MODE_EAGER = 0, GP_PLUGIN_MODE_CAPTURE = 1, GP_PLUGIN_MODE_GRAPH = 2 };

/* Return value of every call: 0 = ok, otherwise gp_plugin_error says what went wrong. */
enum { GP_PLUGIN_OK = 0, GP_PLUGIN_FAILED = 1 };

/* What kind of failure: a CUDA runtime error (cuda_code and api are set), or one of
 * graphprof's exit-code categories (2 usage, 3 bad input, 4 environment, 6 internal). */
enum { GP_PLUGIN_ERROR_CUDA = 100 };

typedef struct gp_plugin_error {
  int32_t kind;      /* GP_PLUGIN_ERROR_CUDA or an exit-code category */
  int32_t cuda_code; /* cudaError_t value when kind is GP_PLUGIN_ERROR_CUDA */
  char api[64];
  char message[1024];
} gp_plugin_error;

typedef struct gp_plugin_param {
  const char* name;
  const char* default_value;
  const char* help;
} gp_plugin_param;

typedef struct gp_plugin_workload {
  const char* name;
  const char* description;
  const gp_plugin_param* params;
  uint32_t param_count;
  int32_t provides_graph; /* 0: no build_graph, graph mode is recorded as "not provided" */
} gp_plugin_workload;

/* What enqueue launches through (gp::LaunchContext on either side). */
typedef struct gp_plugin_launch {
  struct CUstream_st* stream;
  uint64_t iteration;
  void (*record_call)(void* user, double ns); /* host time of each launch API call; NULL: off */
  void* record_user;
  uint64_t calls; /* out: launch API calls made */
} gp_plugin_launch;

typedef struct gp_plugin {
  uint32_t api_major;
  uint32_t api_minor;
  uint32_t struct_size;        /* sizeof(gp_plugin) as the plugin was compiled */
  uint32_t workload_desc_size; /* sizeof(gp_plugin_workload) as the plugin was compiled */
  const char* plugin_name;
  const char* plugin_version;
  const char* compiler; /* informational, e.g. "GCC 13.3.0" */
  uint32_t workload_count;
  const gp_plugin_workload* workloads;

  /* An instance of workload `index`; NULL on failure. destroy is teardown. */
  void* (*create)(uint32_t index, gp_plugin_error* err);
  void (*destroy)(void* instance);
  int32_t (*setup)(void* instance, uint32_t count, const char* const* keys, const char* const* values,
                   gp_plugin_error* err);
  int32_t (*reset)(void* instance, struct CUstream_st* stream, gp_plugin_error* err);
  int32_t (*enqueue)(void* instance, gp_plugin_launch* launch, gp_plugin_error* err);
  int32_t (*build_graph)(void* instance, struct CUgraph_st* graph, gp_plugin_error* err);
  /* Writes the reason a mode is unsupported into buf (empty when supported). */
  int32_t (*unsupported_reason)(void* instance, int32_t mode, char* buf, size_t cap, gp_plugin_error* err);
  /* Writes the output digest (hex text) into buf. */
  int32_t (*checksum)(void* instance, struct CUstream_st* stream, char* buf, size_t cap, gp_plugin_error* err);
  /* *exec may be replaced (the plugin then destroyed the old one). */
  int32_t (*before_replay)(void* instance, struct CUgraph_st* graph, struct CUgraphExec_st** exec,
                           gp_plugin_launch* launch, gp_plugin_error* err);
  int32_t (*extra_metrics)(void* instance, void (*emit)(void* user, const char* key, double value), void* user,
                           gp_plugin_error* err);
} gp_plugin;

typedef const gp_plugin* (*gp_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHPROF_PLUGIN_ABI_H */
