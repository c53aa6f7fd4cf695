-- Whether SDK writes (LinkForty install and event reports) must carry a credential of the project:
-- an API key (Authorization: Bearer) or its app token. 'required' for projects created from now
-- on (the application sets it); projects that already exist keep LinkForty's open contract so that
-- apps already shipped without a key keep reporting. Operators switch them with PATCH
-- /admin/v1/projects/{id} {"sdk_auth":"required"}.
ALTER TABLE projects ADD COLUMN sdk_auth TEXT NOT NULL DEFAULT 'open' CHECK (sdk_auth IN ('required', 'open'));
