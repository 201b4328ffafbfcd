# loadshift's image for those with a registry and a container daemon: `docker build -t
# REGISTRY/loadshift:0.1.0 .` The runtime stage holds the same files as the image
# scripts/build-image.sh builds offline (both lay them out with scripts/image-rootfs.sh): the
# binary, exactly the shared libraries it loads and their loader, CA certificates, and the
# non-root user 65532. No shell. test/deploy/image_test.sh checks that this file's labels, user
# and entrypoint are those of the offline image.

# Build stage: Debian bookworm, the packages scripts/setup.sh installs to build the binary.
FROM debian:bookworm AS build
WORKDIR /src
COPY . .
RUN ./scripts/setup.sh build \
  && cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOADSHIFT_WERROR=ON \
       -DLOADSHIFT_PCH=OFF \
  && cmake --build build-release --target loadshift \
  && ./scripts/image-rootfs.sh build-release/loadshift /rootfs

# Runtime stage: nothing but what the binary needs.
FROM scratch
COPY --from=build /rootfs/ /
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="loadshift" \
      org.opencontainers.image.description="loadshift, a load-aware descheduler for Kubernetes" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.base.name="scratch"
ENV PATH=/usr/bin
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/usr/bin/loadshift"]
