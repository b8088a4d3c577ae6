#include "h5ad_sizer/h5/source_driver.hpp"

#include <H5FDpublic.h>
#include <H5public.h>
#if H5_VERSION_GE(1, 14, 0)
#include <H5FDdevelop.h>
#endif

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <cstring>
#include <memory>
#include <mutex>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/metadata_prefetch.hpp"

namespace h5ad_sizer::h5 {
namespace {

thread_local std::exception_ptr pending_error;

#if H5_VERSION_GE(1, 14, 0)
constexpr H5FD_class_value_t kDriverValue = 0x2ad5;  // within [H5_VFD_RESERVED, H5_VFD_MAX]
#endif

struct DriverInfo {
  io::ByteSource* source = nullptr;
};

// HDF5 treats a driver's file as an H5FD_t it can cast; our state follows.
struct SourceFile {
  H5FD_t base;
  io::ByteSource* source = nullptr;
  haddr_t eoa = 0;
  std::unique_ptr<MetadataPrefetch> prefetch;  // for sources that fetch ahead
};

SourceFile* cast(H5FD_t* file) { return reinterpret_cast<SourceFile*>(file); }
const SourceFile* cast(const H5FD_t* file) { return reinterpret_cast<const SourceFile*>(file); }

herr_t report(const char* function, const char* message) {
  H5Epush2(H5E_DEFAULT, __FILE__, function, __LINE__, H5E_ERR_CLS, H5E_VFL, H5E_READERROR, "%s",
           message);
  return -1;
}

void* info_copy(const void* info) {
  return new (std::nothrow) DriverInfo(*static_cast<const DriverInfo*>(info));
}

herr_t info_free(void* info) {
  delete static_cast<DriverInfo*>(info);
  return 0;
}

H5FD_t* open_callback(const char*, unsigned flags, hid_t fapl, haddr_t) {
  if (flags & (H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC)) {
    report("open", "h5ad-sizer's driver is read-only");
    return nullptr;
  }
  const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(fapl));
  if (info == nullptr || info->source == nullptr) {
    report("open", "no byte source in the file access properties");
    return nullptr;
  }
  auto* file = new (std::nothrow) SourceFile{};
  if (file == nullptr) return nullptr;
  file->source = info->source;
  try {
    if (file->source->fetches_ahead()) file->prefetch = std::make_unique<MetadataPrefetch>(*file->source);
  } catch (...) {
    // Without it every read still works, one round trip at a time.
  }
  return &file->base;
}

herr_t close_callback(H5FD_t* file) {
  delete cast(file);
  return 0;
}

int compare_callback(const H5FD_t* a, const H5FD_t* b) {
  const auto left = reinterpret_cast<std::uintptr_t>(cast(a)->source);
  const auto right = reinterpret_cast<std::uintptr_t>(cast(b)->source);
  return left < right ? -1 : left > right ? 1 : 0;
}

herr_t query_callback(const H5FD_t*, unsigned long* flags) {
  // Let HDF5 gather small metadata reads and sieve raw data reads into
  // larger ones: fewer calls into the source.
  *flags = H5FD_FEAT_ACCUMULATE_METADATA_READ | H5FD_FEAT_DATA_SIEVE;
  return 0;
}

haddr_t get_eoa_callback(const H5FD_t* file, H5FD_mem_t) { return cast(file)->eoa; }

herr_t set_eoa_callback(H5FD_t* file, H5FD_mem_t, haddr_t address) {
  cast(file)->eoa = address;
  return 0;
}

haddr_t get_eof_callback(const H5FD_t* file, H5FD_mem_t) {
  try {
    return cast(file)->source->size();
  } catch (...) {
    pending_error = std::current_exception();
    return HADDR_UNDEF;
  }
}

herr_t get_handle_callback(H5FD_t* file, hid_t, void** handle) {
  *handle = cast(file)->source;
  return 0;
}

herr_t read_callback(H5FD_t* file, H5FD_mem_t type, hid_t, haddr_t address, std::size_t size,
                     void* buffer) {
  try {
    io::ByteSource& source = *cast(file)->source;
    const std::uint64_t end = source.size();
    // Like the POSIX driver: bytes past the end of the file read as zeros.
    std::size_t inside = 0;
    if (address < end) inside = static_cast<std::size_t>(std::min<std::uint64_t>(size, end - address));
    if (inside > 0) source.read(address, inside, buffer);
    if (inside < size) std::memset(static_cast<char*>(buffer) + inside, 0, size - inside);
    // A group's B-tree: what HDF5 will read next is written in it.
    if (type == H5FD_MEM_BTREE && cast(file)->prefetch) cast(file)->prefetch->on_btree_read(address);
    return 0;
  } catch (...) {
    pending_error = std::current_exception();
    return report("read", "reading from the byte source failed");
  }
}

herr_t write_callback(H5FD_t*, H5FD_mem_t, hid_t, haddr_t, std::size_t, const void*) {
  return report("write", "h5ad-sizer's driver is read-only");
}

hid_t driver_id() {
  static hid_t id = H5I_INVALID_HID;
  static std::once_flag once;
  std::call_once(once, [] {
    // Field by field rather than positionally: the struct grew between
    // HDF5 1.10 and 1.14 (version, value, vector and selection I/O, ctl).
    static H5FD_class_t driver{};
#if H5_VERSION_GE(1, 14, 0)
    driver.version = H5FD_CLASS_VERSION;
    // A private identifier from the range HDF5 leaves to unregistered
    // drivers; never written to a file (the driver keeps no superblock data).
    driver.value = kDriverValue;
#endif
    driver.name = "h5ad-sizer";
    driver.maxaddr = static_cast<haddr_t>(INT64_MAX);
    driver.fc_degree = H5F_CLOSE_WEAK;
    driver.fapl_size = sizeof(DriverInfo);
    driver.fapl_copy = info_copy;
    driver.fapl_free = info_free;
    driver.open = open_callback;
    driver.close = close_callback;
    driver.cmp = compare_callback;
    driver.query = query_callback;
    driver.get_eoa = get_eoa_callback;
    driver.set_eoa = set_eoa_callback;
    driver.get_eof = get_eof_callback;
    driver.get_handle = get_handle_callback;
    driver.read = read_callback;
    driver.write = write_callback;
    const H5FD_mem_t free_lists[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;
    std::copy(std::begin(free_lists), std::end(free_lists), std::begin(driver.fl_map));
    id = H5FDregister(&driver);
  });
  if (id < 0) fail("registering h5ad-sizer's file driver");
  return id;
}

}  // namespace

Handle open_file(io::ByteSource& source, const std::string& name) {
  initialize();
  Handle access(check(H5Pcreate(H5P_FILE_ACCESS), "creating file access properties"));
  DriverInfo info{&source};
  check(H5Pset_driver(access.get(), driver_id(), &info), "selecting h5ad-sizer's file driver");
  return Handle(check(H5Fopen(name.c_str(), H5F_ACC_RDONLY, access.get()), "cannot open as HDF5"));
}

io::ByteSource* byte_source_of(hid_t file) {
  Handle access(check(H5Fget_access_plist(file), "reading file access properties"));
  if (H5Pget_driver(access.get()) != driver_id()) return nullptr;
  void* handle = nullptr;
  check(H5Fget_vfd_handle(file, access.get(), &handle), "reading the file handle");
  return static_cast<io::ByteSource*>(handle);
}

std::exception_ptr take_pending_source_error() {
  std::exception_ptr error = pending_error;
  pending_error = nullptr;
  return error;
}

}  // namespace h5ad_sizer::h5
