#!/usr/bin/python3
"""Writes an AnnData file shaped like a CELLxGENE Discover dataset: the
schema's obs columns (25 categoricals, a few numeric), a var with feature
columns, obsm embeddings, a few uns entries, a CSR X and raw, gzip. The
values are random; what matters for remote reads is the number and
placement of HDF5 objects (about 130), not the numbers in them.

    /usr/bin/python3 bench/make_cxg_like.py OUT.h5ad N_OBS
"""
import sys

import anndata as ad
import numpy as np
import pandas as pd
import scipy.sparse as sp

OBS_CATEGORICALS = [
    "assay", "cell_type", "tissue", "donor_id", "sex", "disease", "development_stage",
    "self_reported_ethnicity", "suspension_type", "organism", "assay_ontology_term_id",
    "cell_type_ontology_term_id", "tissue_ontology_term_id", "disease_ontology_term_id",
    "sex_ontology_term_id", "development_stage_ontology_term_id", "organism_ontology_term_id",
    "self_reported_ethnicity_ontology_term_id", "tissue_type", "batch", "sample", "leiden",
    "author_cell_type", "library_id", "observation_joinid",
]


def main(path, n_obs, n_vars=20_000):
    rng = np.random.default_rng(0)
    X = sp.random(n_obs, n_vars, density=0.02, format="csr", dtype=np.float32, random_state=1)
    barcodes = ["".join(rng.choice(list("ACGT"), 16)) + "-1" for _ in range(n_obs)]
    obs = pd.DataFrame(index=barcodes)
    for i, column in enumerate(OBS_CATEGORICALS):
        n_categories = 2 + (i * 7) % 60
        values = [f"{column}_value_{j}" for j in range(n_categories)]
        obs[column] = pd.Categorical(rng.choice(values, n_obs))
    obs["n_genes"] = rng.integers(200, 5000, n_obs)
    obs["total_counts"] = rng.random(n_obs).astype(np.float32)
    obs["pct_mito"] = rng.random(n_obs)
    obs["is_primary_data"] = rng.random(n_obs) > 0.5
    var = pd.DataFrame(index=[f"ENSG{i:011d}" for i in range(n_vars)])
    var["feature_name"] = pd.Categorical([f"GENE{i}" for i in range(n_vars)])
    var["feature_reference"] = pd.Categorical(["NCBITaxon:9606"] * n_vars)
    var["feature_biotype"] = pd.Categorical(["gene"] * n_vars)
    var["feature_is_filtered"] = np.zeros(n_vars, bool)
    var["means"] = rng.random(n_vars)
    adata = ad.AnnData(X=X, obs=obs, var=var)
    adata.obsm["X_umap"] = rng.random((n_obs, 2))
    adata.obsm["X_pca"] = rng.random((n_obs, 50)).astype(np.float32)
    adata.uns["schema_version"] = "5.0.0"
    adata.uns["title"] = "A dataset shaped like CELLxGENE's"
    adata.uns["default_embedding"] = "X_umap"
    n_types = len(adata.obs["cell_type"].cat.categories)
    adata.uns["cell_type_colors"] = np.array([f"#{i:06x}" for i in range(n_types)])
    adata.raw = adata
    adata.write_h5ad(path, compression="gzip")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
