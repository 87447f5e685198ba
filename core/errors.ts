/**
 * The one error type the service raises on purpose. Routes never build error
 * bodies themselves: they throw an `ApiError` and the error handler answers
 * `{error, statusCode}` (plus `issues` for validation failures).
 */

/** One validation problem, in the spec's `issues` format. */
export interface Issue {
  path: string[];
  message: string;
  code: string;
}

/** An error with an HTTP status and a message meant for the client. */
export class ApiError extends Error {
  constructor(
    readonly status:
      | 400
      | 401
      | 403
      | 404
      | 409
      | 410
      | 412
      | 413
      | 415
      | 416
      | 423
      | 429
      | 460
      | 500
      | 503,
    message: string,
    readonly issues?: Issue[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** 400 with the message given. */
export const badRequest = (message: string, issues?: Issue[]) => new ApiError(400, message, issues);
/** 403 with the message given (default `forbidden`). */
export const forbidden = (message = "forbidden") => new ApiError(403, message);
/** 404 `Not Found`. */
export const notFound = (message = "Not Found") => new ApiError(404, message);
