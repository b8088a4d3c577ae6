#include "h5ad_sizer/h5/attributes.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/node.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "h5_objects.hpp"
#include "test_support.hpp"

namespace h5ad_sizer::h5 {
namespace {

// What a question got: an answer, or the failure's message.
template <typename Question>
auto ask(Question question) -> std::variant<decltype(question()), std::string> {
  try {
    return question();
  } catch (const std::exception& error) {
    return std::string(error.what());
  }
}

herr_t note_attribute(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

struct Asked {
  std::size_t questions = 0;
  std::uint64_t answered_directly = 0;
};

// Asks the reader and HDF5 the same questions of every object of the file
// at `path` (each attribute it has, and one it has not), expecting the same
// answers. A file HDF5 cannot open is skipped (the broken fixtures).
Asked compare_every_attribute(const std::string& path) {
  Asked asked;
  const testing::OpenedFile opened(path);
  const hid_t file = opened.file.get();
  if (!opened.file) return asked;
  StringHeap heap(file);
  HeaderReader headers(heap.source(), heap.geometry());
  AttributeReader reader(heap, headers);
  for (const std::string& name : testing::object_names(file)) {
    Handle object(H5Oopen(file, name.c_str(), H5P_DEFAULT));
    std::vector<std::string> attributes;
    hsize_t index = 0;
    EXPECT_GE(H5Aiterate2(object.get(), H5_INDEX_NAME, H5_ITER_INC, &index, note_attribute, &attributes), 0);
    attributes.emplace_back("no such attribute");
    for (const std::string& attribute : attributes) {
      const char* a = attribute.c_str();
      EXPECT_EQ(ask([&] { return reader.has(object.get(), a); }), ask([&] { return has_attribute(object.get(), a); }))
          << path << " " << name << " " << a;
      EXPECT_EQ(ask([&] { return reader.string_list(object.get(), a); }),
                ask([&] { return string_list_attribute(object.get(), a); }))
          << path << " " << name << " " << a;
      EXPECT_EQ(ask([&] { return reader.string(object.get(), a); }),
                ask([&] { return string_attribute(object.get(), a); }))
          << path << " " << name << " " << a;
      asked.questions += 3;
    }
  }
  asked.answered_directly = reader.answered_directly();
  return asked;
}

TEST(AttributeReader, AnswersAsHdf5DoesOnEveryObjectOfTheFixturesAndTheRealCorpus) {
  std::size_t questions = 0;
  std::uint64_t direct = 0;
  for (const std::string& folder : {std::string(H5AD_SIZER_DATA_DIR), std::string(H5AD_SIZER_CORPUS_DIR)}) {
    for (const std::string& path : testing::h5ad_files(folder)) {
      const Asked asked = compare_every_attribute(path);
      questions += asked.questions;
      direct += asked.answered_directly;
    }
  }
  EXPECT_GT(questions, 1000u);
  // h5py writes version-1 headers: nearly everything is answered from them.
  EXPECT_GT(direct, questions * 9 / 10);
}

TEST(AttributeReader, AnswersEveryQuestionOfAnH5pyFileFromTheHeaders) {
  const Asked asked = compare_every_attribute(testing::data_file("example.h5ad"));
  EXPECT_GT(asked.questions, 100u);
  EXPECT_EQ(asked.answered_directly, asked.questions);
}

void write_string_attribute(hid_t object, const char* name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  Handle space(H5Screate(H5S_SCALAR));
  Handle attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  const char* text = value.c_str();
  ASSERT_GE(H5Awrite(attribute.get(), type.get(), &text), 0);
}

TEST(AttributeReader, LeavesVersion2HeadersAndDenseAttributesToHdf5) {
  initialize();
  testing::ScopedTempDir dir;
  const std::string path = dir.file("latest.h5");
  {
    Handle access(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()));
    Handle many(H5Gcreate2(file.get(), "many", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    // Past 8 attributes the latest format moves them to dense storage.
    for (int i = 0; i < 20; ++i) write_string_attribute(many.get(), ("a" + std::to_string(i)).c_str(), "v");
    Handle few(H5Gcreate2(file.get(), "few", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    write_string_attribute(few.get(), "encoding-type", "dict");
  }
  const Asked asked = compare_every_attribute(path);
  EXPECT_GT(asked.questions, 60u);
  EXPECT_EQ(asked.answered_directly, 0u);
}

TEST(AttributeReader, LeavesAStringTheHeapDoesNotHoldToHdf5) {
  initialize();
  testing::ScopedTempDir dir;
  const std::string path = dir.file("damaged.h5");
  {
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    Handle group(H5Gcreate2(file.get(), "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    write_string_attribute(group.get(), "encoding-type", "dict");
  }
  // The collection's first object (the attribute's text, number 1) is
  // renumbered: the attribute's reference names an object it lacks.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto collection = bytes.find("GCOL");
  ASSERT_NE(collection, std::string::npos);
  ASSERT_EQ(bytes[collection + 16], 1);
  bytes[collection + 16] = 7;
  std::ofstream(path, std::ios::binary) << bytes;

  auto source = io::open_local_file(path);
  Handle file = open_file(*source, path);
  Handle group(H5Oopen(file.get(), "g", H5P_DEFAULT));
  StringHeap heap(file.get());
  HeaderReader headers(heap.source(), heap.geometry());
  AttributeReader reader(heap, headers);
  EXPECT_EQ(ask([&] { return reader.string_list(group.get(), "encoding-type"); }),
            ask([&] { return string_list_attribute(group.get(), "encoding-type"); }));
  EXPECT_EQ(reader.answered_directly(), 0u);
  // The header itself was read: presence is still answered from it.
  EXPECT_TRUE(reader.has(group.get(), "encoding-type"));
  EXPECT_EQ(reader.answered_directly(), 1u);
}

}  // namespace
}  // namespace h5ad_sizer::h5
