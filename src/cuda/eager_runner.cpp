// Eager mode: every operation of an iteration is launched from the host.
#include "mode_runner.hpp"

namespace gp {

namespace {
class EagerRunner final : public ModeRunner {
 public:
  void prepare(Workload&, cudaStream_t, int, OneOffSamples&) override {}
  void launch(Workload& w, LaunchContext& ctx) override { w.enqueue(ctx); }
};
}  // namespace

std::unique_ptr<ModeRunner> make_eager_runner() { return std::make_unique<EagerRunner>(); }

}  // namespace gp
