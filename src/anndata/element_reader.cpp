#include "h5ad_sizer/anndata/element_reader.hpp"

#include <algorithm>
#include <cstdio>

#include "h5ad_sizer/anndata/encoded.hpp"
#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/h5/dataset_header.hpp"
#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/node.hpp"

namespace h5ad_sizer {
namespace {

// Longer than cell barcodes (16-26), gene ids (15-18) and ontology terms
// (10-14): an assumption that errs on the side of more memory.
constexpr std::uint64_t kAssumedStringLength = 64;

// Removes an object from the set of open ancestors when its read ends.
class AncestorScope {
 public:
  AncestorScope(std::set<std::string>& open, std::string id) : m_open(open), m_id(std::move(id)) {}
  ~AncestorScope() { m_open.erase(m_id); }
  AncestorScope(const AncestorScope&) = delete;
  AncestorScope& operator=(const AncestorScope&) = delete;

 private:
  std::set<std::string>& m_open;
  std::string m_id;
};

constexpr std::size_t kMaxDepth = 512;

Element unfollowed(const std::string& path, const std::string& kind, const std::string& why) {
  Element element;
  element.path = path;
  element.encoding = kind;
  element.note = why;
  return element;
}

// One decimal, as std::fixed with precision 1 prints it (a string stream
// per dataset cost more than sampling a small one's strings).
std::string fixed(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

void ElementReader::invalid(const std::string& path, const std::string& why) const {
  throw_invalid(m_source + ": " + path + ": " + why);
}

Element ElementReader::with_object(hid_t parent, const std::string& name,
                                   const std::string& path,
                                   const std::function<Element(hid_t)>& body,
                                   std::optional<h5::LinkKind> kind) {
  if (m_on_element) m_on_element(path);
  try {
    switch (kind ? *kind : h5::link_kind(parent, name)) {
      case h5::LinkKind::missing:
        invalid(path, "missing");
      case h5::LinkKind::external:
        return unfollowed(path, "external-link", "external link: not followed, not counted");
      case h5::LinkKind::other:
        return unfollowed(path, "user-defined-link", "user-defined link: not followed");
      case h5::LinkKind::hard:
      case h5::LinkKind::soft:
        break;
    }
    if (m_open_objects.size() >= kMaxDepth) {
      // anndata reads nested groups recursively; Python's default limit of
      // 1000 frames stops it well before this depth. Our own recursion is
      // bounded here too, whatever the file holds.
      invalid(path, "nested more than " + std::to_string(kMaxDepth) + " levels deep");
    }
    h5::Handle object = h5::open_child(parent, name);
    // Only a group can lead back to itself; a dataset needs no identity.
    if (h5::object_type(object.get()) != h5::ObjectType::group) return body(object.get());
    std::string identity = h5::object_identity(object.get());
    if (!m_open_objects.insert(identity).second) {
      return unfollowed(path, "link-cycle", "links back to an enclosing group: not followed");
    }
    AncestorScope scope(m_open_objects, std::move(identity));
    return body(object.get());
  } catch (const h5::Failure& failure) {
    invalid(path, failure.what());
  } catch (const std::overflow_error& overflow) {
    invalid(path, overflow.what());
  }
}

ElementReader::DirectReads& ElementReader::direct(hid_t object) {
  if (!m_direct) m_direct = std::make_unique<DirectReads>(object);
  return *m_direct;
}

h5::DatasetInfo ElementReader::describe(hid_t dataset) {
  ++m_datasets_read;
  return h5::describe_dataset(dataset, m_storage);
}

Element ElementReader::read(hid_t parent, const std::string& name, const std::string& path) {
  return with_object(parent, name, path, [&](hid_t object) { return dispatch(object, path); });
}

Element ElementReader::read(hid_t parent, const h5::Link& link, const std::string& path) {
  if (link.kind == h5::LinkKind::hard && link.address) {
    if (auto element = read_dataset_directly(parent, link, path)) return std::move(*element);
  }
  return with_object(
      parent, link.name, path, [&](hid_t object) { return dispatch(object, path); }, link.kind);
}

Element ElementReader::dispatch(hid_t object, const std::string& path) {
  switch (h5::object_type(object)) {
    case h5::ObjectType::group:
      return read_group(object, path, attributes(object).string(object, kEncodingType).value_or(""));
    case h5::ObjectType::dataset:
      return read_dataset(object, path);
    case h5::ObjectType::other:
      break;
  }
  return unfollowed(path, "named-datatype", "not data");
}

Element ElementReader::read_group(hid_t group, const std::string& path,
                                  const std::string& encoding) {
  if (encoding == "csr_matrix" || encoding == "csc_matrix") {
    return read_sparse(group, path, encoding);
  }
  if (auto legacy_format = attributes(group).string(group, kLegacySparseFormat)) {
    return read_sparse(group, path, *legacy_format + "_matrix");
  }
  if (encoding == "dataframe") return read_encoded_dataframe(group, path);
  if (encoding == "categorical") return read_categorical(group, path);
  if (encoding == "nullable-integer" || encoding == "nullable-boolean" ||
      encoding == "nullable-string-array") {
    return read_nullable(group, path, encoding);
  }
  if (encoding == "awkward-array") {
    // ak.from_buffers wraps the numpy buffers without copying them.
    return read_dict(group, path, encoding);
  }
  if (encoding.empty() || encoding == "dict" || encoding == "raw" || encoding == "anndata") {
    return read_dict(group, path, encoding.empty() ? "dict" : encoding);
  }
  return read_dict(group, path, encoding,
                   "unknown encoding '" + encoding + "': counted as the data it holds");
}

Element ElementReader::read_dict(hid_t group, const std::string& path, const std::string& encoding,
                                 const std::string& note) {
  Element element;
  element.path = path;
  element.encoding = encoding;
  element.note = note;
  for (const h5::Link& link : h5::links(group)) {
    element.children.push_back(read(group, link, path + "/" + link.name));
  }
  element.sum_children();
  return element;
}

Element ElementReader::read_sparse(hid_t group, const std::string& path,
                                   const std::string& format) {
  if (format != "csr_matrix" && format != "csc_matrix") {
    invalid(path, "unknown sparse format '" + format + "'");
  }
  auto shape = h5::integer_list_attribute(group, kShape);
  if (!shape) shape = h5::integer_list_attribute(group, kLegacySparseShape);
  if (!shape) invalid(path, "sparse matrix has no integer shape attribute");
  if (shape->size() != 2) invalid(path, "sparse matrix shape attribute must have 2 entries");
  if ((*shape)[0] < 0 || (*shape)[1] < 0) invalid(path, "sparse matrix shape is negative");

  Element element;
  element.path = path;
  element.encoding = format;
  element.shape = {static_cast<std::uint64_t>((*shape)[0]), static_cast<std::uint64_t>((*shape)[1])};

  h5::DatasetInfo parts[3];
  const char* names[3] = {"data", "indices", "indptr"};
  for (int i = 0; i < 3; ++i) {
    const std::string part_path = path + "/" + names[i];
    element.children.push_back(with_object(group, names[i], part_path, [&](hid_t dataset) {
      if (h5::object_type(dataset) != h5::ObjectType::dataset) invalid(part_path, "not a dataset");
      parts[i] = describe(dataset);
      if (parts[i].dims.size() != 1) invalid(part_path, "must be one-dimensional");
      return dataset_element(dataset, part_path, parts[i], "array");
    }));
  }
  const auto& [data, indices, indptr] = parts;
  if (data.elements != indices.elements) {
    invalid(path, "data has " + std::to_string(data.elements) + " values but indices has " +
                      std::to_string(indices.elements));
  }
  const std::uint64_t major = format == "csr_matrix" ? element.shape[0] : element.shape[1];
  if (indptr.elements != checked_add(major, 1)) {
    invalid(path + "/indptr", "has " + std::to_string(indptr.elements) + " entries, expected " +
                                  std::to_string(major) + " + 1 for shape " +
                                  std::to_string(element.shape[0]) + " x " +
                                  std::to_string(element.shape[1]));
  }
  element.dtype = data.type.numpy_name;
  element.nnz = data.elements;
  element.sum_children();
  return element;
}

namespace {

// The encoding anndata reads a dataset as: "null" for an h5py.Empty, else
// its encoding-type, else what its shape and type imply.
std::string dataset_encoding(const h5::DatasetInfo& info, std::string encoding) {
  if (info.null_space) return "null";
  if (!encoding.empty()) return encoding;
  const bool text =
      info.type.type_class == h5::TypeClass::vlen_string || info.type.type_class == h5::TypeClass::fixed_string;
  if (info.dims.empty()) return text ? "string" : "numeric-scalar";
  if (text) return "string-array";
  if (info.type.type_class == h5::TypeClass::compound) return "rec-array";
  return "array";
}

Element null_element(const std::string& path, const h5::DatasetInfo& info) {
  Element element;
  element.path = path;
  element.encoding = "null";
  element.stored_bytes = info.stored_bytes;
  element.stored_bytes_exact = info.stored_bytes_exact;
  return element;
}

}  // namespace

Element ElementReader::read_dataset(hid_t dataset, const std::string& path) {
  const h5::DatasetInfo info = describe(dataset);
  const std::string encoding =
      dataset_encoding(info, attributes(dataset).string(dataset, kEncodingType).value_or(""));
  if (encoding == "null") return null_element(path, info);
  return dataset_element(dataset, path, info, encoding);
}

std::optional<Element> ElementReader::read_dataset_directly(hid_t parent, const h5::Link& link,
                                                            const std::string& path) {
  // As with_object would refuse to open it.
  if (m_open_objects.size() >= kMaxDepth) return std::nullopt;
  const std::uint64_t address = *link.address;
  DirectReads& reads = direct(parent);
  const h5::ObjectHeader* header = reads.headers.at(address);
  if (header == nullptr || h5::is_group_header(*header)) return std::nullopt;
  // Its name must lead here, as it does when HDF5 (and h5py) open it by
  // name: a damaged group can list a member it then cannot find.
  if (h5::hard_link_address(parent, link.name) != address) return std::nullopt;
  // (If HDF5 must read it after all, with_object tells the callback again.)
  if (m_on_element) m_on_element(path);
  try {
    const auto described = h5::describe_from_header(*header, reads.headers.geometry(), m_storage,
                                                    reads.headers.source()->size());
    if (!described) return std::nullopt;
    const h5::DatasetInfo& info = described->info;
    std::optional<std::vector<std::string>> tag;
    if (!reads.attributes.string_list_at(address, kEncodingType, tag)) return std::nullopt;
    const std::string encoding = dataset_encoding(info, tag && tag->size() == 1 ? tag->front() : "");
    Element element = encoding == "null" ? null_element(path, info) : dataset_fields(path, info, encoding);
    // Strings sampled from contiguous data (an empty dataset has none).
    const auto sample = [&](const std::string& member, Element& into) {
      if (!described->data_address && !info.null_space && info.elements > 0) return false;
      auto strings = h5::sample_strings_at(reads.heap, info, described->data_address.value_or(0), member,
                                           described->records, m_limits);
      if (!strings) return false;
      set_strings(into, std::move(*strings));
      return true;
    };
    if (element.form == Form::str_objects && !sample("", element)) return std::nullopt;
    if (element.form == Form::records) {
      auto members = split_members(path, info, /*strings_as_objects=*/false, sample);
      if (!members) return std::nullopt;
      element.children = std::move(*members);
    }
    ++m_datasets_read;
    return element;
  } catch (const h5::Failure& failure) {
    invalid(path, failure.what());
  } catch (const std::overflow_error& overflow) {
    invalid(path, overflow.what());
  }
}

Element ElementReader::dataset_fields(const std::string& path, const h5::DatasetInfo& info,
                                      const std::string& encoding) {
  Element element;
  element.path = path;
  element.encoding = encoding;
  element.dtype = info.type.numpy_name;
  element.shape = info.dims;
  element.nnz = info.elements;
  element.itemsize = info.type.size;
  element.stored_bytes = info.stored_bytes;
  element.stored_bytes_exact = info.stored_bytes_exact;
  element.dataset = info;
  switch (info.type.type_class) {
    case h5::TypeClass::vlen_string:
      element.form = Form::str_objects;
      break;
    case h5::TypeClass::fixed_string:
      // read_dataset: fixed-width bytes become numpy unicode via astype(str).
      element.form = Form::unicode;
      break;
    case h5::TypeClass::compound:
      // Records are read whole (all members' strings at once) and then
      // copied by astype to decode them.
      element.form = Form::records;
      break;
    case h5::TypeClass::reference:
      element.form = Form::references;
      break;
    default:
      element.form = info.dims.empty() ? Form::number_object : Form::numbers;
      break;
  }
  return element;
}

Element ElementReader::dataset_element(hid_t dataset, const std::string& path,
                                       const h5::DatasetInfo& info, const std::string& encoding) {
  Element element = dataset_fields(path, info, encoding);
  if (element.form == Form::str_objects) {
    sample_strings(dataset, info, "", element);
  } else if (element.form == Form::records) {
    element.children = split_compound(dataset, path, info, /*strings_as_objects=*/false);
  }
  return element;
}

void ElementReader::sample_strings(hid_t dataset, const h5::DatasetInfo& info,
                                   const std::string& member, Element& element) {
  if (!info.unavailable_filters.empty()) {
    // Compressed with a filter this build cannot run: size the strings by
    // a generous assumed length instead of reading them.
    h5::StringSample sample;
    element.note = "strings: filter " + std::to_string(info.unavailable_filters.front()) +
                   " unavailable, assumed mean length " + std::to_string(kAssumedStringLength) +
                   " B";
    sample.oversized_lengths.push_back(kAssumedStringLength);
    element.strings = std::move(sample);
    return;
  }
  set_strings(element, h5::sample_strings(dataset, info, member, m_limits, &heap(dataset)));
}

void ElementReader::set_strings(Element& element, h5::StringSample sample) {
  std::uint64_t text_bytes = 0;
  if (sample.lengths.empty()) {
    for (const auto& t : sample.texts) text_bytes += t.size();
    for (auto length : sample.oversized_lengths) text_bytes += length;
  } else {
    for (auto length : sample.lengths) text_bytes += length;
  }
  if (sample.size() > 0) {
    element.note = "strings: sampled " + std::to_string(sample.size()) + " of " +
                   std::to_string(sample.population) + ", mean length " +
                   fixed(static_cast<double>(text_bytes) / static_cast<double>(sample.size())) + " B";
  }
  element.strings = std::move(sample);
}

std::vector<Element> ElementReader::split_compound(hid_t dataset, const std::string& path,
                                                   const h5::DatasetInfo& info,
                                                   bool strings_as_objects) {
  return *split_members(path, info, strings_as_objects, [&](const std::string& member, Element& element) {
    sample_strings(dataset, info, member, element);
    return true;
  });
}

std::optional<std::vector<Element>> ElementReader::split_members(const std::string& path, const h5::DatasetInfo& info,
                                                                 bool strings_as_objects,
                                                                 const MemberSampler& sample) {
  std::vector<Element> members;
  const auto& type = info.type;
  std::uint64_t stored_left = info.stored_bytes;
  for (std::size_t i = 0; i < type.members.size(); ++i) {
    const h5::TypeInfo& member = type.members[i];
    const std::string& name = type.member_names[i];
    Element element;
    element.path = path + "[" + name + "]";
    element.dtype = member.numpy_name;
    element.shape = info.dims;
    element.nnz = info.elements;
    element.itemsize = member.size;
    // The file stores records, not columns: share the record's bytes out by
    // member width, the last member taking the rounding remainder.
    element.stored_bytes = i + 1 == type.members.size()
                               ? stored_left
                               : info.stored_bytes / type.size * member.size;
    stored_left -= std::min(stored_left, element.stored_bytes);
    element.stored_bytes_exact = info.stored_bytes_exact;

    const bool text = member.type_class == h5::TypeClass::vlen_string ||
                      member.type_class == h5::TypeClass::fixed_string;
    if (text && (strings_as_objects || member.type_class == h5::TypeClass::vlen_string)) {
      element.encoding = "string-array";
      element.form = Form::str_field;
      if (!sample(name, element)) return std::nullopt;
    } else if (text) {
      element.encoding = "string-array";
      element.form = Form::unicode_field;
    } else {
      // An array member (legacy obsm: X_pca as float32[50]) becomes a column
      // block; its size already spans the whole member array.
      element.encoding = "array";
      element.form = Form::numbers;
      for (auto d : member.array_dims) element.shape.push_back(d);
    }
    members.push_back(std::move(element));
  }
  return members;
}

Element ElementReader::read_nullable(hid_t group, const std::string& path,
                                     const std::string& encoding) {
  Element element;
  element.path = path;
  element.encoding = encoding;
  element.children.push_back(read(group, "values", path + "/values"));
  element.children.push_back(read(group, "mask", path + "/mask"));
  const Element& values = element.children.front();
  element.dtype = values.dtype;
  element.shape = values.shape;
  element.nnz = values.nnz;
  element.sum_children();
  return element;
}

}  // namespace h5ad_sizer
