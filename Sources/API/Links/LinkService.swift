import Attribution
import Foundation
import HTTP
import Store

/// Creating, changing and deleting links for every API, keeping the click cache right.
struct LinkService: Sendable {
    let services: Services

    /// - Parameter fieldNames: the request's names for the link's fields, where they differ from
    ///   the admin API's snake_case ones, so that a 422 names what the client sent.
    func create(_ link: Link, codeIsCustom: Bool, fieldNames: [String: String] = [:]) throws -> Link {
        var link = link
        if !codeIsCustom { link.shortCode = ShortCode.generate() }
        try throwIfInvalid(link.validate().map { $0.renamed(fieldNames) })
        let created = try services.links.create(link, codeIsCustom: codeIsCustom)
        services.linkCache.invalidate(code: created.shortCode)
        return created
    }

    func update(_ link: Link, previousCode: String, fieldNames: [String: String] = [:]) throws -> Link {
        try throwIfInvalid(link.validate().map { $0.renamed(fieldNames) })
        guard let updated = try services.links.update(link) else { throw HTTPError.notFound("no link \(link.id)") }
        services.linkCache.invalidate(code: previousCode)
        services.linkCache.invalidate(code: updated.shortCode)
        return updated
    }

    func delete(id: String, projectID: String) throws {
        guard let link = try services.links.find(id: id, projectID: projectID) else { throw HTTPError.notFound("no link \(id)") }
        _ = try services.links.delete(id: id, projectID: projectID)
        services.linkCache.invalidate(code: link.shortCode)
    }

    /// The template a link names by id or slug (422 when it names one the project lacks).
    func template(id: String?, slug: String?, projectID: String, key: String) throws -> LinkTemplate? {
        if let id {
            guard let template = try services.templates.find(id: id, projectID: projectID) else {
                throw HTTPError.invalidField(key, "the project has no template \(id)")
            }
            return template
        }
        if let slug {
            guard let template = try services.templates.find(slug: slug, projectID: projectID) else {
                throw HTTPError.invalidField(key, "the project has no template with slug '\(slug)'")
            }
            return template
        }
        return nil
    }
}
