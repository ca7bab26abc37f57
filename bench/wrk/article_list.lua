-- GET /api/v1/articles?size=20: the first page of the published list, anonymous.
wrk.method = "GET"
wrk.path = "/api/v1/articles?size=20"
