#include "h5ad_sizer/h5/node.hpp"

#include <cstring>
#include <exception>

#include "h5ad_sizer/h5/error.hpp"

namespace h5ad_sizer::h5 {
namespace {

LinkKind kind_of(H5L_type_t type) {
  switch (type) {
    case H5L_TYPE_HARD:
      return LinkKind::hard;
    case H5L_TYPE_SOFT:
      return LinkKind::soft;
    case H5L_TYPE_EXTERNAL:
      return LinkKind::external;
    default:
      return LinkKind::other;
  }
}

// Where a hard link leads (the file's address space), from what H5Literate
// or H5Lget_info says of it; nullopt for another kind of link, or when HDF5
// cannot say. `location`: the link's group.
std::optional<std::uint64_t> hard_link_target(hid_t location, const H5L_info_t& info) {
  if (info.type != H5L_TYPE_HARD) return std::nullopt;
#if H5_VERSION_GE(1, 12, 0)
  haddr_t address = HADDR_UNDEF;
  if (H5VLnative_token_to_addr(location, info.u.token, &address) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
#else
  (void)location;
  const haddr_t address = info.u.address;
#endif
  if (address == HADDR_UNDEF) return std::nullopt;
  return address;
}

struct LinkCollector {
  std::vector<Link> links;
  std::exception_ptr error;  // exceptions must not unwind through HDF5's C frames
};

herr_t collect_link(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto* collector = static_cast<LinkCollector*>(data);
  try {
    collector->links.push_back(Link{name, kind_of(info->type), hard_link_target(group, *info)});
    return 0;
  } catch (...) {
    collector->error = std::current_exception();
    return -1;
  }
}

Handle string_memory_type(hid_t file_type) {
  Handle memory(check(H5Tcopy(H5T_C_S1), "creating a string type"));
  check(H5Tset_size(memory.get(), H5T_VARIABLE), "creating a string type");
  check(H5Tset_cset(memory.get(), H5Tget_cset(file_type)), "creating a string type");
  return memory;
}

std::vector<std::string> read_string_attribute(hid_t attribute, hid_t file_type,
                                               std::size_t count) {
  std::vector<std::string> out;
  out.reserve(count);
  if (H5Tis_variable_str(file_type) > 0) {
    Handle memory = string_memory_type(file_type);
    std::vector<char*> buffer(count, nullptr);
    check(H5Aread(attribute, memory.get(), buffer.data()), "reading a string attribute");
    for (char* s : buffer) {
      out.emplace_back(s ? s : "");
      H5free_memory(s);
    }
    return out;
  }
  const std::size_t width = H5Tget_size(file_type);
  std::vector<char> buffer(width * count, '\0');
  Handle memory(check(H5Tcopy(file_type), "copying a string type"));
  check(H5Aread(attribute, memory.get(), buffer.data()), "reading a string attribute");
  for (std::size_t i = 0; i < count; ++i) {
    const char* start = buffer.data() + i * width;
    out.emplace_back(start, strnlen(start, width));
  }
  return out;
}

}  // namespace

ObjectType object_type(hid_t object) {
  switch (H5Iget_type(object)) {
    case H5I_GROUP:
    case H5I_FILE:
      return ObjectType::group;
    case H5I_DATASET:
      return ObjectType::dataset;
    default:
      return ObjectType::other;
  }
}

std::uint64_t file_size(hid_t file) {
  hsize_t size = 0;
  check(H5Fget_filesize(file, &size), "reading the file size");
  return size;
}

LinkKind link_kind(hid_t group, const std::string& name) {
  htri_t exists = check(H5Lexists(group, name.c_str(), H5P_DEFAULT), "looking up a link");
  if (!exists) return LinkKind::missing;
  H5L_info_t info;
  check(H5Lget_info(group, name.c_str(), &info, H5P_DEFAULT), "reading a link");
  return kind_of(info.type);
}

std::optional<std::uint64_t> hard_link_address(hid_t group, const std::string& name) {
  H5L_info_t info;
  if (H5Lget_info(group, name.c_str(), &info, H5P_DEFAULT) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  return hard_link_target(group, info);
}

Handle open_child(hid_t group, const std::string& name) {
  return Handle(check(H5Oopen(group, name.c_str(), H5P_DEFAULT), "opening an object"));
}

std::vector<Link> links(hid_t group) {
  LinkCollector collector;
  hsize_t index = 0;
  herr_t status =
      H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &index, collect_link, &collector);
  if (collector.error) std::rethrow_exception(collector.error);
  check(status, "listing a group");
  return std::move(collector.links);
}

std::vector<std::string> child_names(hid_t group) {
  std::vector<std::string> names;
  for (Link& link : links(group)) names.push_back(std::move(link.name));
  return names;
}

std::string object_identity(hid_t object) {
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  check(H5Oget_info3(object, &info, H5O_INFO_BASIC), "reading object info");
  std::string token(reinterpret_cast<const char*>(&info.token), sizeof(info.token));
  return std::to_string(info.fileno) + ":" + token;
#else
  H5O_info_t info;
  check(H5Oget_info2(object, &info, H5O_INFO_BASIC), "reading object info");
  return std::to_string(info.fileno) + ":" + std::to_string(info.addr);
#endif
}

std::optional<std::uint64_t> object_address(hid_t object) {
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  if (H5Oget_info3(object, &info, H5O_INFO_BASIC) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  haddr_t address = HADDR_UNDEF;
  if (H5VLnative_token_to_addr(object, info.token, &address) < 0 || address == HADDR_UNDEF) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  return address;
#else
  H5O_info_t info;
  if (H5Oget_info2(object, &info, H5O_INFO_BASIC) < 0 || info.addr == HADDR_UNDEF) {
    H5Eclear2(H5E_DEFAULT);
    return std::nullopt;
  }
  return info.addr;
#endif
}

bool has_attribute(hid_t object, const char* name) {
  return check(H5Aexists(object, name), "looking up an attribute") > 0;
}

std::optional<std::vector<std::string>> string_list_attribute(hid_t object, const char* name) {
  if (!has_attribute(object, name)) return std::nullopt;
  Handle attribute(check(H5Aopen(object, name, H5P_DEFAULT), "opening an attribute"));
  Handle type(check(H5Aget_type(attribute.get()), "reading an attribute type"));
  Handle space(check(H5Aget_space(attribute.get()), "reading an attribute space"));
  const auto count =
      static_cast<std::size_t>(check(H5Sget_simple_extent_npoints(space.get()), "counting"));
  // h5py writes [] as float64, and an empty bytes array as S1: no strings.
  if (count == 0) return std::vector<std::string>{};
  if (H5Tget_class(type.get()) != H5T_STRING) return std::nullopt;
  return read_string_attribute(attribute.get(), type.get(), count);
}

std::optional<std::string> string_attribute(hid_t object, const char* name) {
  auto list = string_list_attribute(object, name);
  if (!list || list->size() != 1) return std::nullopt;
  return std::move(list->front());
}

std::optional<std::vector<std::int64_t>> integer_list_attribute(hid_t object, const char* name) {
  if (!has_attribute(object, name)) return std::nullopt;
  Handle attribute(check(H5Aopen(object, name, H5P_DEFAULT), "opening an attribute"));
  Handle type(check(H5Aget_type(attribute.get()), "reading an attribute type"));
  if (H5Tget_class(type.get()) != H5T_INTEGER) return std::nullopt;
  Handle space(check(H5Aget_space(attribute.get()), "reading an attribute space"));
  const auto count =
      static_cast<std::size_t>(check(H5Sget_simple_extent_npoints(space.get()), "counting"));
  std::vector<std::int64_t> values(count);
  if (count > 0) {
    check(H5Aread(attribute.get(), H5T_NATIVE_INT64, values.data()),
          "reading an integer attribute");
  }
  return values;
}

}  // namespace h5ad_sizer::h5
