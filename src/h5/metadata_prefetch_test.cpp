#include "h5ad_sizer/h5/metadata_prefetch.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <string>
#include <vector>

#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "test_support.hpp"

namespace h5ad_sizer::h5 {
namespace {

// A source that says it fetches ahead and notes what it was asked to
// prefetch (it holds everything already).
class RecordingSource final : public io::ByteSource {
 public:
  explicit RecordingSource(std::unique_ptr<io::ByteSource> inner) : m_inner(std::move(inner)) {}
  std::uint64_t size() override { return m_inner->size(); }
  void read(std::uint64_t offset, std::size_t length, void* out) override { m_inner->read(offset, length, out); }
  const io::IoStats& stats() const override { return m_inner->stats(); }
  bool fetches_ahead() const override { return true; }
  std::uint64_t prefetch(const std::vector<io::ByteRange>& ranges) override {
    std::uint64_t bytes = 0;
    for (const auto& range : ranges) bytes += range.length;
    prefetched.insert(prefetched.end(), ranges.begin(), ranges.end());
    ++calls;
    return reported_bytes > 0 ? reported_bytes : bytes;
  }
  bool was_prefetched(std::uint64_t address) const {
    for (const auto& range : prefetched) {
      if (address >= range.offset && address < range.offset + range.length) return true;
    }
    return false;
  }
  std::vector<io::ByteRange> prefetched;
  int calls = 0;
  std::uint64_t reported_bytes = 0;  // what each prefetch says it asked for, if not 0

 private:
  std::unique_ptr<io::ByteSource> m_inner;
};

struct Visit {
  hid_t file = H5I_INVALID_HID;
  RecordingSource* source = nullptr;
  int objects = 0;
  std::vector<std::string> missed;
};

// H5Ovisit's callback: notes an object whose header was not prefetched.
#if H5_VERSION_GE(1, 12, 0)
herr_t note_object(hid_t, const char* name, const H5O_info2_t* info, void* data) {
  auto* visit = static_cast<Visit*>(data);
  haddr_t address = 0;
  H5VLnative_token_to_addr(visit->file, info->token, &address);
#else
herr_t note_object(hid_t, const char* name, const H5O_info_t* info, void* data) {
  auto* visit = static_cast<Visit*>(data);
  const haddr_t address = info->addr;
#endif
  ++visit->objects;
  if (std::strcmp(name, ".") != 0 && !visit->source->was_prefetched(address)) visit->missed.emplace_back(name);
  return 0;
}

TEST(MetadataPrefetch, FindsEveryObjectOfAFileBeforeHdf5OpensIt) {
  RecordingSource source(io::open_local_file(testing::data_file("example.h5ad")));
  Handle file = open_file(source, "example.h5ad");
  // Listing the root reads its B-tree: the walk runs from there, level by
  // level (the root's members, theirs, ...), one prefetch a level.
  Handle root(H5Gopen2(file.get(), "/", H5P_DEFAULT));
  H5G_info_t group{};
  ASSERT_GE(H5Gget_info(root.get(), &group), 0);
  ASSERT_GT(source.calls, 2);
  const auto before = source.prefetched.size();

  Visit visit;
  visit.file = file.get();
  visit.source = &source;
#if H5_VERSION_GE(1, 12, 0)
  ASSERT_GE(H5Ovisit3(file.get(), H5_INDEX_NAME, H5_ITER_INC, note_object, &visit, H5O_INFO_BASIC), 0);
#else
  ASSERT_GE(H5Ovisit2(file.get(), H5_INDEX_NAME, H5_ITER_INC, note_object, &visit, H5O_INFO_BASIC), 0);
#endif
  EXPECT_GT(visit.objects, 20);
  EXPECT_TRUE(visit.missed.empty()) << visit.missed.front();
  // Visiting everything asked for nothing more: it had all been walked.
  EXPECT_EQ(source.prefetched.size(), before);
}

TEST(MetadataPrefetch, ALocalFileIsNotWalked) {
  auto local = io::open_local_file(testing::data_file("example.h5ad"));
  MetadataPrefetch prefetch(*local);
  prefetch.on_btree_read(1000);
  EXPECT_TRUE(prefetch.visited().empty());
}

// A superblock (version 0, 8-byte addresses and lengths) and a group
// B-tree node at byte 64 whose children are itself, a symbol node claiming
// 65 535 members in a file of 4 KiB, and an address past the end.
std::string hostile_file() {
  std::string bytes(4096, '\0');
  const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  std::memcpy(&bytes[0], signature, 8);
  bytes[13] = 8;
  bytes[14] = 8;
  const auto put64 = [&](std::size_t at, std::uint64_t value) { std::memcpy(&bytes[at], &value, 8); };
  std::memcpy(&bytes[64], "TREE", 4);
  bytes[68] = 0;  // a group node
  bytes[69] = 1;  // level 1: children are nodes
  bytes[70] = 3;  // entries
  put64(64 + 24 + 8, 64);
  put64(64 + 24 + 24, 1024);
  put64(64 + 24 + 40, ~0ull);
  std::memcpy(&bytes[1024], "TREE", 4);
  bytes[1028] = 0;
  bytes[1029] = 0;  // level 0: children are symbol nodes
  bytes[1030] = 1;
  put64(1024 + 24 + 8, 2048);
  std::memcpy(&bytes[2048], "SNOD", 4);
  bytes[2054] = static_cast<char>(0xff);
  bytes[2055] = static_cast<char>(0xff);
  return bytes;
}

TEST(MetadataPrefetch, AHostileStructureStopsTheWalk) {
  RecordingSource source(io::open_memory(hostile_file()));
  MetadataPrefetch prefetch(source);
  prefetch.on_btree_read(64);
  // Itself and the past-the-end address are not followed; the symbol node
  // is read past the end of the file, which stops the walk.
  EXPECT_EQ(prefetch.visited().size(), 3u);
  EXPECT_FALSE(source.was_prefetched(64));
  EXPECT_TRUE(source.was_prefetched(2048));
  prefetch.on_btree_read(1024);  // once stopped, it stays stopped
  EXPECT_EQ(prefetch.visited().size(), 3u);
}

TEST(MetadataPrefetch, StopsAtItsByteBudget) {
  // A source whose first prefetch takes the whole budget: the walk stops
  // there, before the level below (the symbol node at 2048).
  RecordingSource source(io::open_memory(hostile_file()));
  source.reported_bytes = MetadataPrefetch::kMaxBytes;
  MetadataPrefetch prefetch(source);
  prefetch.on_btree_read(64);
  EXPECT_EQ(source.calls, 1);
  EXPECT_EQ(prefetch.visited().size(), 2u);  // the node at 64 and its child at 1024
  EXPECT_EQ(prefetch.visited().count(2048), 0u);
}

}  // namespace
}  // namespace h5ad_sizer::h5
