#pragma once

#include <hdf5.h>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/h5/attributes.hpp"
#include "h5ad_sizer/h5/header_reader.hpp"
#include "h5ad_sizer/h5/node.hpp"
#include "h5ad_sizer/h5/strings.hpp"
#include "h5ad_sizer/h5/types.hpp"

namespace h5ad_sizer {

// Reads one element of an AnnData file (and everything below it) from HDF5
// metadata, the way anndata would dispatch it: on the encoding-type attribute
// where there is one, on the legacy conventions where there is not. Strings
// are the exception to "metadata only": their lengths are sampled.
class ElementReader {
 public:
  explicit ElementReader(std::string source, h5::SampleLimits limits = {},
                         h5::StorageDetail storage = h5::StorageDetail::chunk_index)
      : m_source(std::move(source)), m_limits(limits), m_storage(storage) {}

  // Reads the child `name` of `parent`, which lives at `path`. An element that
  // is not an AnnData encoding is still counted (its datasets' bytes) with a
  // note; an external link is recorded, never followed.
  Element read(hid_t parent, const std::string& name, const std::string& path);
  // The same for a link just listed from `parent` (its kind already known).
  Element read(hid_t parent, const h5::Link& link, const std::string& path);

  // A dataframe (obs, var, raw/var, or one in obsm/varm/uns), either an
  // encoded group or a legacy compound dataset. `categories_for` supplies the
  // categories a legacy file keeps in uns/<column>_categories.
  using LegacyCategories = std::function<std::optional<Element>(const std::string& column)>;
  Element read_dataframe(hid_t parent, const std::string& name, const std::string& path,
                         const LegacyCategories& categories_for = {});

  // One element per member of a compound dataset; `path[member]` names them.
  // Strings become str objects when `strings_as_objects` (dataframe columns),
  // else numpy unicode arrays (rec-arrays keep fixed-width text).
  std::vector<Element> split_compound(hid_t dataset, const std::string& path,
                                      const h5::DatasetInfo& info, bool strings_as_objects);
  // Opens `name` under `parent` (refusing external links and cycles), runs
  // `body` on it and turns library failures into invalid-h5ad errors.
  // `kind` is the link's kind when the caller has it from listing `parent`.
  Element with_object(hid_t parent, const std::string& name, const std::string& path,
                      const std::function<Element(hid_t)>& body,
                      std::optional<h5::LinkKind> kind = std::nullopt);

  // Called with each element's path before it is opened.
  void on_element(std::function<void(const std::string&)> callback) { m_on_element = std::move(callback); }

  // Describes a dataset that anndata will read, counting it.
  h5::DatasetInfo describe(hid_t dataset);
  // How many datasets the reads so far have described.
  std::uint64_t datasets_read() const { return m_datasets_read; }

  // Throws the invalid-h5ad error for `path` (for checks made by callers).
  [[noreturn]] void invalid(const std::string& path, const std::string& why) const;

 private:
  Element dispatch(hid_t object, const std::string& path);
  std::function<void(const std::string&)> m_on_element;
  // What is read from the file's bytes without HDF5: string texts from the
  // global heap, object headers, attributes. Made from the first object that
  // needs it (every object read belongs to one file).
  struct DirectReads {
    explicit DirectReads(hid_t object)
        : heap(object), headers(heap.source(), heap.geometry()), attributes(heap, headers) {}
    h5::StringHeap heap;
    h5::HeaderReader headers;
    h5::AttributeReader attributes;
  };
  DirectReads& direct(hid_t object);
  h5::StringHeap& heap(hid_t object) { return direct(object).heap; }
  h5::AttributeReader& attributes(hid_t object) { return direct(object).attributes; }
  std::unique_ptr<DirectReads> m_direct;
  // The dataset `link` (a hard one) leads to, read from its header without
  // opening it through HDF5; nullopt when HDF5 must (h5::describe_from_header
  // says when), and then nothing of it has been recorded.
  std::optional<Element> read_dataset_directly(hid_t parent, const h5::Link& link, const std::string& path);
  Element read_group(hid_t group, const std::string& path, const std::string& encoding);
  Element read_dataset(hid_t dataset, const std::string& path);
  Element read_sparse(hid_t group, const std::string& path, const std::string& format);
  Element read_dict(hid_t group, const std::string& path, const std::string& encoding,
                    const std::string& note = {});
  Element read_categorical(hid_t group, const std::string& path);
  Element read_nullable(hid_t group, const std::string& path, const std::string& encoding);
  Element read_encoded_dataframe(hid_t group, const std::string& path);
  Element read_compound_dataframe(hid_t dataset, const std::string& path,
                                  const LegacyCategories& categories_for);
  Element read_v07_categorical(hid_t dataframe, const std::string& column,
                               const std::string& path);
  // A dataset's own element: dtype, shape, stored bytes, and what anndata
  // makes of it.
  Element dataset_element(hid_t dataset, const std::string& path, const h5::DatasetInfo& info,
                          const std::string& encoding);
  // The same, but for what needs the dataset itself: its strings' sample
  // and a compound's members.
  static Element dataset_fields(const std::string& path, const h5::DatasetInfo& info, const std::string& encoding);
  // Samples the strings of `dataset` (or of its compound member `member`)
  // into `element`, with a note saying how.
  void sample_strings(hid_t dataset, const h5::DatasetInfo& info, const std::string& member,
                      Element& element);
  // split_compound's members, each string member sampled by `sample`
  // (false: it cannot be, and then nullopt).
  using MemberSampler = std::function<bool(const std::string& member, Element& element)>;
  std::optional<std::vector<Element>> split_members(const std::string& path, const h5::DatasetInfo& info,
                                                    bool strings_as_objects, const MemberSampler& sample);
  // Puts `sample` into `element`, with a note saying how it was taken.
  static void set_strings(Element& element, h5::StringSample sample);

  std::string m_source;
  h5::SampleLimits m_limits;
  h5::StorageDetail m_storage;
  // Objects on the path from the root to the element being read: a link
  // back to one of them is a cycle.
  std::set<std::string> m_open_objects;
  std::uint64_t m_datasets_read = 0;
};

}  // namespace h5ad_sizer
