# h5ad-sizer for AWS Batch (`size`, reading DATASET_URI and TASK_TOKEN from
# the job's environment) and AWS Lambda (`lambda`, a container-image
# function): one image, two commands.
#   docker build -t h5ad-sizer .
#   docker run --rm -v "$PWD/data:/data:ro" h5ad-sizer size /data/example.h5ad

FROM debian:bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake g++ ninja-build zlib1g-dev liblzf-dev \
      libcurl4-openssl-dev libcli11-dev nlohmann-json3-dev libspdlog-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake cmake
COPY include include
COPY src src
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build build \
 && strip build/h5ad-sizer

FROM debian:bookworm-slim
# What the binary needs at run time (HDF5 and libstdc++ are linked in):
# its compression libraries, and libcurl with CA certificates for remote paths.
# tests/infra/test_image_runtime.py builds a root with exactly this list.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libcurl4 liblzf1 zlib1g \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/h5ad-sizer /usr/local/bin/h5ad-sizer
RUN useradd --system --uid 10001 --no-create-home sizer
USER 10001
ENTRYPOINT ["h5ad-sizer"]
CMD ["--help"]
