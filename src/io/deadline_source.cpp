#include <chrono>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer::io {
namespace {

class DeadlineSource final : public ByteSource {
 public:
  DeadlineSource(std::unique_ptr<ByteSource> inner, Deadline deadline, std::string name)
      : m_inner(std::move(inner)), m_deadline(deadline), m_name(std::move(name)) {}
  std::uint64_t size() override { return m_inner->size(); }
  void read(std::uint64_t offset, std::size_t length, void* out) override {
    if (std::chrono::steady_clock::now() >= m_deadline) {
      throw Error(ExitStatus::input_unreadable, m_name + ": time limit reached while reading the file");
    }
    m_inner->read(offset, length, out);
  }
  const IoStats& stats() const override { return m_inner->stats(); }
  bool fetches_ahead() const override { return m_inner->fetches_ahead(); }
  std::uint64_t prefetch(const std::vector<ByteRange>& ranges) override {
    if (std::chrono::steady_clock::now() >= m_deadline) return 0;
    return m_inner->prefetch(ranges);
  }

 private:
  std::unique_ptr<ByteSource> m_inner;
  Deadline m_deadline;
  std::string m_name;
};

}  // namespace

std::unique_ptr<ByteSource> with_deadline(std::unique_ptr<ByteSource> source, Deadline deadline,
                                          std::string name) {
  return std::make_unique<DeadlineSource>(std::move(source), deadline, std::move(name));
}

}  // namespace h5ad_sizer::io
