# Marquee's container image: `marquee` on Debian 12 (debian:bookworm-slim)
# with only the Debian packages it links (RUNTIME-PACKAGES) and no Swift
# toolchain, as an unprivileged user. How to build and push it: README,
# "Release binary and container image". make dist-test runs the runtime
# stage's setup (Packaging/install-runtime.sh) and the tarball in a Debian 12
# minbase chroot, where no container engine is at hand.

# ---- build: the official Swift 6.3 image (Debian 12) and the -dev packages
FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The -dev packages before the sources, so that a change of code keeps this layer.
COPY Makefile ./
RUN make dist-setup
COPY . .
ARG REVISION=unknown
# The release binary (Swift runtime and Foundation static), packed; this fails
# when RUNTIME-PACKAGES no longer matches what the binary links.
RUN MARQUEE_COMMIT="$REVISION" make dist \
 && mkdir /opt/marquee \
 && tar -xzf dist/marquee-linux-x86_64.tar.gz -C /opt/marquee

# ---- runtime: Debian 12 slim, RUNTIME-PACKAGES and the tarball's contents
FROM debian:bookworm-slim
COPY RUNTIME-PACKAGES Packaging/install-runtime.sh /tmp/marquee-setup/
RUN sh /tmp/marquee-setup/install-runtime.sh /tmp/marquee-setup/RUNTIME-PACKAGES \
 && rm -rf /tmp/marquee-setup
COPY --from=build /opt/marquee/ /opt/marquee/
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.title="marquee" \
      org.opencontainers.image.description="Turns a batch job file into a carousel banner bundle (H.264/AAC HLS and MP4, covers, dark variants, WebP/JPEG images, banners.json)" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["marquee"]
CMD ["--help"]
