# Builds and runs Marquee the way the README does: the same setup script installs the
# packages, so the image and a developer's machine cannot drift apart.
#   docker build -t marquee . && docker run --rm -p 8080:8080 -e MARQUEE_TOKEN=change-me marquee
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY scripts/setup.sh scripts/setup.sh
RUN scripts/setup.sh
COPY . .
RUN swift build -c release --product marquee

FROM swift:6.3-bookworm-slim
WORKDIR /app
COPY scripts/setup.sh scripts/setup.sh
RUN scripts/setup.sh --runtime
COPY --from=build /src/.build/release/marquee /usr/local/bin/marquee
# The pipeline templates are read at run time (see pipelines/README.md).
COPY pipelines /usr/local/share/marquee/pipelines
COPY web /usr/local/share/marquee/web
EXPOSE 8080
# Inside a container the port is reached from outside the container's loopback, so the
# daemon listens on all interfaces and therefore requires MARQUEE_TOKEN.
ENV MARQUEE_LISTEN=0.0.0.0:8080
ENTRYPOINT ["/usr/local/bin/marquee", "serve"]
CMD ["--demo"]
