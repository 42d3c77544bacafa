/**
 * HTML forms: {@link dev.peregrine.form.FormCursor}, a zero-allocation cursor over the pairs of a
 * query string or an {@code application/x-www-form-urlencoded} body. Depends on nothing of Peregrine:
 * {@code exchange.RequestView} lends one cursor per request view ({@code req.query().pairs()},
 * {@code req.form().pairs()}); {@link dev.peregrine.form.MultipartParser}, a streaming
 * {@code multipart/form-data} codec fed bytes in any pieces, and {@link dev.peregrine.form.MultipartForm},
 * which collects its parts, spooling large files to disk and always deleting them.
 */
package dev.peregrine.form;
