#include "h5ad_sizer/anndata/reader.hpp"

#include <algorithm>
#include <set>

#include "h5ad_sizer/anndata/element_reader.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/node.hpp"

namespace h5ad_sizer {
namespace {

const std::set<std::string> kMappings = {"layers", "obsm", "varm", "obsp", "varp"};

// "/obs/louvain" -> "louvain"; "/obs[louvain]" (a record member) -> "louvain".
std::string key_of(const std::string& path) {
  if (!path.empty() && path.back() == ']') {
    const auto open = path.rfind('[');
    return path.substr(open + 1, path.size() - open - 2);
  }
  return path.substr(path.rfind('/') + 1);
}

std::uint64_t rows_of(const Element& element) {
  return element.shape.empty() ? 0 : element.shape.front();
}

class AnnDataReader {
 public:
  AnnDataReader(const OpenedSource& source, const ReadOptions& options)
      : m_root(source.file.get()),
        m_elements(source.display_name, options.strings, options.storage) {
    m_elements.on_element(options.on_element);
    m_report.source = source.display_name;
    m_report.file_bytes = source.file_bytes;
  }

  Report read() {
    m_report.layout = detect_layout(m_root, m_report.source);
    const auto names = h5::child_names(m_root);
    for (const std::string& name : names) {
      if (name == "uns") continue;  // last: legacy obs/var columns claim some of it
      read_top_level(name);
    }
    if (std::find(names.begin(), names.end(), "uns") != names.end()) read_uns();
    derive_dimensions();
    m_report.datasets_read = m_elements.datasets_read();
    return std::move(m_report);
  }

 private:
  void read_top_level(const std::string& name) {
    const std::string path = "/" + name;
    if (name == "obs" || name == "var") {
      read_annotation(m_root, name, path, name + "_columns", /*hashed_index=*/true);
    } else if (kMappings.count(name) > 0) {
      read_mapping(m_root, name, path, name);
    } else if (name == "raw") {
      read_raw_group();
    } else if (name == "raw.var") {  // legacy raw: top-level siblings
      read_annotation(m_root, name, path, "", /*hashed_index=*/false);
    } else if (name == "raw.varm") {
      read_mapping(m_root, name, path, "");
    } else {
      Element element = m_elements.read(m_root, name, path);
      if (name != "X" && name != "raw.X" && name != "raw.cat") {
        element.note = "not an AnnData element; counted, but anndata does not read it";
      }
      m_report.elements.push_back(std::move(element));
    }
  }

  // obs, var, raw/var. anndata checks obs_names and var_names for uniqueness.
  void read_annotation(hid_t parent, const std::string& name, const std::string& path,
                       const std::string& keys, bool hashed_index) {
    Element frame = m_elements.read_dataframe(
        parent, name, path, [this](const std::string& column) { return legacy_categories(column); });
    if (!keys.empty()) {
      auto& columns = m_report.keys[keys];
      const std::uint64_t n_columns = frame.shape.size() > 1 ? frame.shape[1] : 0;
      for (std::uint64_t i = 0; i < n_columns && i < frame.children.size(); ++i) {
        columns.push_back(key_of(frame.children[i].path));
      }
    }
    frame.checks_unique_index = hashed_index;
    m_report.elements.push_back(std::move(frame));
  }

  // layers, obsm, ... : one element per key. Legacy files store obsm/varm as
  // one compound dataset, a member per key.
  void read_mapping(hid_t parent, const std::string& name, const std::string& path,
                    const std::string& keys) {
    std::vector<Element> entries;
    m_elements.with_object(parent, name, path, [&](hid_t mapping) {
      if (h5::object_type(mapping) == h5::ObjectType::dataset) {
        const auto info = m_elements.describe(mapping);
        if (info.type.type_class != h5::TypeClass::compound) {
          m_elements.invalid(path, "is a dataset; anndata reads " + name +
                                       " as a group of arrays (or, before 0.7, a compound dataset)");
        }
        entries = m_elements.split_compound(mapping, path, info, /*strings_as_objects=*/false);
      } else {
        for (const std::string& key : h5::child_names(mapping)) {
          entries.push_back(m_elements.read(mapping, key, path + "/" + key));
        }
      }
      return Element{};
    });
    for (Element& entry : entries) {
      if (!keys.empty()) m_report.keys[keys].push_back(key_of(entry.path));
      m_report.elements.push_back(std::move(entry));
    }
  }

  void read_raw_group() {
    m_elements.with_object(m_root, "raw", "/raw", [&](hid_t raw) {
      for (const std::string& name : h5::child_names(raw)) {
        const std::string path = "/raw/" + name;
        if (name == "var") {
          read_annotation(raw, name, path, "", /*hashed_index=*/false);
        } else if (name == "varm") {
          read_mapping(raw, name, path, "");
        } else {
          m_report.elements.push_back(m_elements.read(raw, name, path));
        }
      }
      return Element{};
    });
  }

  // anndata <= 0.6 kept a categorical column's categories in
  // uns/<column>_categories; reading moves them out of uns.
  std::optional<Element> legacy_categories(const std::string& column) {
    if (m_report.layout != Layout::legacy) return std::nullopt;
    const std::string name = column + "_categories";
    if (h5::link_kind(m_root, "uns") == h5::LinkKind::missing) return std::nullopt;
    h5::Handle uns = h5::open_child(m_root, "uns");
    if (h5::link_kind(uns.get(), name) == h5::LinkKind::missing) return std::nullopt;
    m_claimed_uns.insert(name);
    return m_elements.read(uns.get(), name, "/uns/" + name);
  }

  void read_uns() {
    m_elements.with_object(m_root, "uns", "/uns", [&](hid_t uns) {
      for (const h5::Link& link : h5::links(uns)) {
        if (m_claimed_uns.count(link.name) > 0) continue;
        m_report.elements.push_back(m_elements.read(uns, link, "/uns/" + link.name));
      }
      note_moved_neighbors(uns);
      return Element{};
    });
  }

  // AnnData moves 2-D uns["neighbors"]["distances"|"connectivities"] of old
  // files into obsp on construction.
  void note_moved_neighbors(hid_t uns) {
    if (h5::link_kind(uns, "neighbors") == h5::LinkKind::missing) return;
    h5::Handle neighbors = h5::open_child(uns, "neighbors");
    if (h5::object_type(neighbors.get()) != h5::ObjectType::group) return;
    auto& obsp = m_report.keys["obsp"];
    for (const char* key : {"distances", "connectivities"}) {
      if (h5::link_kind(neighbors.get(), key) == h5::LinkKind::missing) continue;
      if (std::find(obsp.begin(), obsp.end(), key) == obsp.end()) obsp.push_back(key);
    }
  }

  // Elements the reader recorded without reading them.
  static bool unfollowed(const Element& element) {
    return element.encoding == "external-link" || element.encoding == "user-defined-link" ||
           element.encoding == "link-cycle" || element.encoding == "named-datatype";
  }

  void derive_dimensions() {
    const Element* x = m_report.find("/X");
    const Element* obs = m_report.find("/obs");
    const Element* var = m_report.find("/var");
    // What anndata itself refuses (0.10 and later open /obs and /var
    // unconditionally; X is a matrix).
    if (!obs) m_elements.invalid("/obs", "missing (an AnnData file has obs and var)");
    if (!var) m_elements.invalid("/var", "missing (an AnnData file has obs and var)");
    if (x && !unfollowed(*x) && x->shape.size() != 2) {
      m_elements.invalid("/X", "is " + std::to_string(x->shape.size()) +
                                   "-dimensional; AnnData's X is a 2-dimensional matrix");
    }
    const bool x_has_shape = x && x->shape.size() == 2;
    if (x_has_shape) {
      m_report.n_obs = x->shape[0];
      m_report.n_vars = x->shape[1];
    }
    check_rows(*obs, m_report.n_obs, x_has_shape, "n_obs", "first");
    check_rows(*var, m_report.n_vars, x_has_shape, "n_vars", "second");
    check_aligned_elements();
    for (const char* mapping : {"layers", "obsm", "varm", "obsp", "varp"}) {
      m_report.keys.try_emplace(mapping);
    }
    m_report.keys.try_emplace("obs_columns");
    m_report.keys.try_emplace("var_columns");
  }

  // anndata aligns layers, obsm, varm, obsp and varp with obs and var, and
  // refuses a file whose elements disagree with them.
  void check_aligned_elements() {
    const std::uint64_t n_obs = m_report.n_obs;
    const std::uint64_t n_vars = m_report.n_vars;
    for (const Element& element : m_report.elements) {
      if (unfollowed(element) || element.shape.empty()) continue;
      const std::string& path = element.path;
      auto under = [&](const char* mapping) { return path.rfind(std::string("/") + mapping + "/", 0) == 0; };
      const auto& shape = element.shape;
      auto dims = [&](std::uint64_t a, std::uint64_t b) {
        return std::to_string(a) + (b == kAny ? std::string(" x ...") : " x " + std::to_string(b));
      };
      auto expect = [&](std::uint64_t rows, std::uint64_t columns, const char* why) {
        const bool rows_ok = shape[0] == rows;
        const bool columns_ok = columns == kAny || (shape.size() > 1 && shape[1] == columns);
        if (!rows_ok || !columns_ok) {
          std::string has;
          for (std::size_t i = 0; i < shape.size(); ++i) has += (i ? " x " : "") + std::to_string(shape[i]);
          m_elements.invalid(path, "has shape " + has + " but " + why + " needs " + dims(rows, columns));
        }
      };
      if (under("layers")) expect(n_obs, n_vars, "a layer (n_obs x n_vars)");
      if (under("obsm")) expect(n_obs, kAny, "obsm (n_obs rows)");
      if (under("varm")) expect(n_vars, kAny, "varm (n_vars rows)");
      if (under("obsp")) expect(n_obs, n_obs, "obsp (n_obs x n_obs)");
      if (under("varp")) expect(n_vars, n_vars, "varp (n_vars x n_vars)");
    }
  }
  static constexpr std::uint64_t kAny = ~std::uint64_t{0};

  void check_rows(const Element& frame, std::uint64_t& dimension, bool from_x,
                  const char* what, const char* axis) {
    const std::uint64_t rows = rows_of(frame);
    if (!from_x) {
      dimension = rows;
    } else if (rows != dimension) {
      m_elements.invalid(frame.path, "has " + std::to_string(rows) + " rows but X's " + axis +
                                         " dimension (" + what + ") is " +
                                         std::to_string(dimension));
    }
  }

  hid_t m_root;
  ElementReader m_elements;
  Report m_report;
  std::set<std::string> m_claimed_uns;
};

}  // namespace

Report read_anndata(const OpenedSource& source, const ReadOptions& options) {
  try {
    return AnnDataReader(source, options).read();
  } catch (const h5::Failure& failure) {
    // Failures inside elements already name them; what is left is the root.
    throw Error(ExitStatus::invalid_h5ad, source.display_name + ": /: " + failure.what());
  }
}

}  // namespace h5ad_sizer
