# Ferry server image. Build: docker build -t ferry . ; run: docker run -p 3000:3000 -v ferry-data:/app/data ferry
FROM denoland/deno:2.9.6

WORKDIR /app
RUN mkdir -p /app/data && chown deno:deno /app/data

# The code stays root-owned (read-only for the server); only data/ is the server's.
COPY . .
USER deno
# Download the dependencies at build time, exactly as pinned by deno.lock.
RUN deno cache --frozen main.ts

# glibc's allocator hands buffers of 128 KiB and more back to the system when they are freed,
# rather than keeping them in its arenas (docs/scaling.md, "Memory").
ENV MALLOC_MMAP_THRESHOLD_=131072

EXPOSE 3000
VOLUME /app/data

# Same flags and permissions as the `start` task in deno.json; the image's entrypoint prefixes
# `deno`. V8's young generation is kept to 4 MiB semi-spaces (docs/scaling.md, "Memory").
CMD ["run", "--v8-flags=--max-semi-space-size=4", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys", "--allow-run=ffmpeg", "--unstable-kv", "main.ts", "serve"]
